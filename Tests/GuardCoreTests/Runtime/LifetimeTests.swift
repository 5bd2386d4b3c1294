import Foundation
import GuardCore
import XCTest

/// Observers are held weakly; a gone observer and an object that goes while observed are misuse.
final class LifetimeTests: XCTestCase {
    func testTheRuntimeDoesNotRetainObservers() {
        var person: Person? = Person()
        let deinitialized = TestBox(false)
        let misuses = recordingMisuse {
            var recorder: Recorder? = Recorder()
            recorder!.onDeinit = { deinitialized.set(true) }
            person!.addObserver(recorder!, forKeyPath: "age")
            recorder = nil
            XCTAssertTrue(deinitialized.get(), "registering did not keep the observer alive")
            XCTAssertEqual(person!.observationCount(forKeyPath: "age"), 1, "the registration is still there")
        }
        XCTAssertEqual(misuses, [], "a gone observer is misuse only when a notification is due")
        // Let the person go inside a recording scope: it still has the dead observer's registration.
        let atExit = recordingMisuse { person = nil }
        XCTAssertEqual(atExit.map(\.kind), [.deallocatedWhileObserved])
    }

    func testAnObserverThatDeinitializesWhileRegisteredIsObserverDeallocatedAtTheNextChange() throws {
        var person: Person? = Person()
        let personAddress = address(of: person!)
        var observerAddress: UInt = 0
        var firstChange: [KVOMisuse] = []
        var secondChange: [KVOMisuse] = []
        var atDeinit: [KVOMisuse] = []
        let survivor = Recorder()
        RuntimeMonitor.withMisusePolicy(.report) {
            RuntimeMonitor.resetMisuseRecords()
            do {
                let doomed = Recorder()
                observerAddress = address(of: doomed)
                person!.addObserver(doomed, forKeyPath: "age", options: [.new], context: Contexts.first)
            }
            person!.addObserver(survivor, forKeyPath: "age", options: [.new])
            person!.age = 1
            firstChange = RuntimeMonitor.reportedMisuses
            RuntimeMonitor.resetMisuseRecords()
            person!.age = 2
            secondChange = RuntimeMonitor.reportedMisuses
            RuntimeMonitor.resetMisuseRecords()
            person!.removeObserver(survivor, forKeyPath: "age")
            XCTAssertEqual(person!.observationCount(forKeyPath: "age"), 1, "the dead registration stays")
            person = nil
            atDeinit = RuntimeMonitor.reportedMisuses
            RuntimeMonitor.resetMisuseRecords()
        }
        let expected = KVOMisuse(
            kind: .observerDeallocated, exceptionName: "EXC_BAD_ACCESS",
            message: "*** -[Recorder observeValueForKeyPath:ofObject:change:context:]: message sent to deallocated "
                + "instance \(renderedAddress(observerAddress)) (key path \"age\" of "
                + "<Person: \(renderedAddress(personAddress))>)",
            keyPath: "age", object: "<Person: \(renderedAddress(personAddress))>",
            observer: "<Recorder: \(renderedAddress(observerAddress))>", thread: "main")
        XCTAssertEqual(firstChange, [expected])
        XCTAssertEqual(secondChange, [expected], "every notification due to the gone observer is reported")
        XCTAssertTrue(try XCTUnwrap(firstChange.first).message.contains("message sent to deallocated instance"))
        XCTAssertEqual(survivor.notes, [Note("age", new: shown(1)), Note("age", new: shown(2))], "others still hear")
        XCTAssertEqual(
            atDeinit,
            [
                Expected.deallocatedWhileObserved(
                    objectType: "Person", objectAddress: personAddress,
                    observanceLines: [
                        observanceLine(
                            observerAddress: observerAddress, observerType: "Recorder", keyPath: "age",
                            options: "<New: YES, Old: NO, Prior: NO>",
                            context: "0x" + String(UInt(bitPattern: Contexts.first), radix: 16))
                    ],
                    keyPaths: ["age"], firstObserver: "<Recorder: \(renderedAddress(observerAddress))>")
            ])
    }

    func testAnObjectThatDeinitializesWhileObservedIsDeallocatedWhileObserved() throws {
        let first = Recorder()
        let second = Recorder()
        var person: Person? = Person()
        let personAddress = address(of: person!)
        let baseline = RuntimeMonitor.liveObservanceCount
        let misuses = recordingMisuse {
            person!.addObserver(first, forKeyPath: "name", options: [.old])
            person!.addObserver(second, forKeyPath: "age", options: [.new, .prior], context: Contexts.second)
            person!.addObserver(first, forKeyPath: "age", options: [.initial])
            XCTAssertEqual(RuntimeMonitor.liveObservanceCount - baseline, 3)
            person = nil
            XCTAssertEqual(RuntimeMonitor.liveObservanceCount, baseline, "the dead object's registrations are gone")
        }
        let prefix = "An instance \(renderedAddress(personAddress)) of class Person was deallocated while key value "
            + "observers were still registered with it."
        let misuse = try XCTUnwrap(misuses.first)
        XCTAssertEqual(misuses.count, 1)
        XCTAssertEqual(misuse.kind, .deallocatedWhileObserved)
        XCTAssertTrue(misuse.message.hasPrefix(prefix), misuse.message)
        // Registrations are listed by key path, each key path's oldest first.
        XCTAssertEqual(
            misuse,
            Expected.deallocatedWhileObserved(
                objectType: "Person", objectAddress: personAddress,
                observanceLines: [
                    observanceLine(
                        observerAddress: address(of: second), observerType: "Recorder", keyPath: "age",
                        options: "<New: YES, Old: NO, Prior: YES>",
                        context: "0x" + String(UInt(bitPattern: Contexts.second), radix: 16)),
                    observanceLine(
                        observerAddress: address(of: first), observerType: "Recorder", keyPath: "age",
                        options: "<New: NO, Old: NO, Prior: NO, Initial: YES>"),
                    observanceLine(
                        observerAddress: address(of: first), observerType: "Recorder", keyPath: "name",
                        options: "<New: NO, Old: YES, Prior: NO>"),
                ],
                keyPaths: ["age", "age", "name"], firstObserver: rendered(second)))
        XCTAssertEqual(misuse.exceptionName, "NSInternalInconsistencyException")
        XCTAssertEqual(first.notes, [Note("age")], "only the initial notification")
        XCTAssertEqual(second.notes, [])
    }

    func testAnObjectWhoseObserversWereAllRemovedDeinitializesQuietly() {
        let recorder = Recorder()
        let baseline = RuntimeMonitor.liveObservanceCount
        weak var gone: Person?
        assertNoMisuse {
            let person = Person()
            gone = person
            person.addObserver(recorder, forKeyPath: "age")
            person.addObserver(recorder, forKeyPath: "account.balance")
            person.removeObserver(recorder, forKeyPath: "account.balance")
            person.removeObserver(recorder, forKeyPath: "age")
        }
        XCTAssertNil(gone)
        XCTAssertEqual(RuntimeMonitor.liveObservanceCount, baseline)
    }

    func testAnObserverRemovedBeforeItDeinitializesCausesNoMisuse() {
        let person = Person()
        let deinitialized = TestBox(false)
        assertNoMisuse {
            do {
                let recorder = Recorder()
                recorder.onDeinit = { deinitialized.set(true) }
                person.addObserver(recorder, forKeyPath: "age")
                person.removeObserver(recorder, forKeyPath: "age")
            }
            person.age = 3
        }
        XCTAssertTrue(deinitialized.get())
        XCTAssertEqual(person.observationCount, 0)
    }
}
