import Foundation
import GuardCore
import XCTest

/// `observationCount`, `observedKeyPaths`, `observationInfo` and `RuntimeMonitor.liveObservanceCount`.
final class BookkeepingTests: XCTestCase {
    func testAnObjectNobodyObservedHasNoRegistrations() {
        let person = Person()
        XCTAssertEqual(person.observationCount, 0)
        XCTAssertEqual(person.observationCount(forKeyPath: "age"), 0)
        XCTAssertEqual(person.observedKeyPaths, [])
        XCTAssertEqual(person.observationInfo, "<ObservationInfo \(rendered(person))> (\n\n)")
    }

    func testCountsFollowAddsAndRemovesPerKeyPath() {
        let person = Person()
        let first = Recorder()
        let second = Recorder()
        let baseline = RuntimeMonitor.liveObservanceCount
        assertNoMisuse {
            person.addObserver(first, forKeyPath: "age")
            person.addObserver(first, forKeyPath: "age")
            person.addObserver(second, forKeyPath: "age", context: Contexts.first)
            person.addObserver(second, forKeyPath: "name")
            XCTAssertEqual(person.observationCount(forKeyPath: "age"), 3)
            XCTAssertEqual(person.observationCount(forKeyPath: "name"), 1)
            XCTAssertEqual(person.observationCount(forKeyPath: "score"), 0)
            XCTAssertEqual(person.observationCount, 4)
            XCTAssertEqual(person.observedKeyPaths, ["age", "name"])
            XCTAssertEqual(RuntimeMonitor.liveObservanceCount - baseline, 4)

            person.removeObserver(first, forKeyPath: "age")
            XCTAssertEqual(person.observationCount(forKeyPath: "age"), 2)
            XCTAssertEqual(RuntimeMonitor.liveObservanceCount - baseline, 3)
            person.removeObserver(second, forKeyPath: "name")
            XCTAssertEqual(person.observedKeyPaths, ["age"])
            XCTAssertEqual(person.observationCount, 2)
            person.removeObserver(second, forKeyPath: "age", context: Contexts.first)
            person.removeObserver(first, forKeyPath: "age")
            XCTAssertEqual(person.observationCount, 0)
            XCTAssertEqual(person.observedKeyPaths, [])
            XCTAssertEqual(RuntimeMonitor.liveObservanceCount, baseline)
        }
    }

    func testAFailedRemovalOrUnknownKeyChangesNoCount() {
        let person = Person()
        let recorder = Recorder()
        let baseline = RuntimeMonitor.liveObservanceCount
        let misuses = recordingMisuse {
            person.addObserver(recorder, forKeyPath: "age")
            person.removeObserver(recorder, forKeyPath: "age", context: Contexts.first)
            person.addObserver(recorder, forKeyPath: "nope")
            XCTAssertEqual(person.observationCount, 1)
            XCTAssertEqual(RuntimeMonitor.liveObservanceCount - baseline, 1)
            person.removeObserver(recorder, forKeyPath: "age")
        }
        XCTAssertEqual(misuses.map(\.kind), [.notRegistered, .unknownKey])
        XCTAssertEqual(RuntimeMonitor.liveObservanceCount, baseline)
    }

    func testLiveCountDropsWhenAnObservedObjectGoes() {
        let recorder = Recorder()
        let baseline = RuntimeMonitor.liveObservanceCount
        let misuses = recordingMisuse {
            var people: [Person] = (0..<3).map { _ in Person() }
            for person in people {
                person.addObserver(recorder, forKeyPath: "age")
                person.addObserver(recorder, forKeyPath: "name")
            }
            XCTAssertEqual(RuntimeMonitor.liveObservanceCount - baseline, 6)
            people.removeLast()
            XCTAssertEqual(RuntimeMonitor.liveObservanceCount - baseline, 4)
            for person in people {
                person.removeObserver(recorder, forKeyPath: "age")
                person.removeObserver(recorder, forKeyPath: "name")
            }
        }
        XCTAssertEqual(misuses.map(\.kind), [.deallocatedWhileObserved])
        XCTAssertEqual(RuntimeMonitor.liveObservanceCount, baseline)
    }

    func testObservationInfoListsEveryRegistrationLikeFoundation() {
        let person = Person()
        let first = Recorder()
        let second = Recorder()
        assertNoMisuse {
            person.addObserver(second, forKeyPath: "name", options: [.old])
            person.addObserver(first, forKeyPath: "age", options: [.new, .initial], context: Contexts.third)
            person.addObserver(second, forKeyPath: "age", options: [.prior, .old, .new])
        }
        let context = "0x" + String(UInt(bitPattern: Contexts.third), radix: 16)
        XCTAssertEqual(
            person.observationInfo,
            "<ObservationInfo \(rendered(person))> (\n"
                + observanceLine(
                    observerAddress: address(of: first), observerType: "Recorder", keyPath: "age",
                    options: "<New: YES, Old: NO, Prior: NO, Initial: YES>", context: context) + "\n"
                + observanceLine(
                    observerAddress: address(of: second), observerType: "Recorder", keyPath: "age",
                    options: "<New: YES, Old: YES, Prior: YES>") + "\n"
                + observanceLine(
                    observerAddress: address(of: second), observerType: "Recorder", keyPath: "name",
                    options: "<New: NO, Old: YES, Prior: NO>")
                + "\n)")
        assertNoMisuse {
            person.removeObserver(second, forKeyPath: "name")
            person.removeObserver(first, forKeyPath: "age")
            person.removeObserver(second, forKeyPath: "age")
        }
    }
}
