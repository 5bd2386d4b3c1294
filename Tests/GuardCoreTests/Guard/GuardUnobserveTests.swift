import Foundation
import GuardCore
import XCTest

/// Removal: one key path, one object, everything; double removal versus removal of something never registered;
/// re-observing after a removal.
final class GuardUnobserveTests: XCTestCase {
    private func makeLogged(
        _ controller: ObservationController<GuardTestObserver>, _ object: Person, _ keyPaths: [String], tag: String,
        log: HandlerLog, file: StaticString = #filePath, line: UInt = #line
    ) {
        for keyPath in keyPaths {
            XCTAssertEqual(
                controller.observe(object, keyPath: keyPath, options: .new, handler: log.recording(tag)), .registered,
                file: file, line: line)
        }
    }

    func testUnobserveOneKeyPathLeavesTheOthersFiring() {
        let observer = GuardTestObserver()
        let (sink, controller) = makeController(for: observer)
        let person = Person()
        let log = HandlerLog()
        assertNoMisuse {
            makeLogged(controller, person, ["name", "age"], tag: "p", log: log)
            XCTAssertEqual(controller.unobserve(person, keyPath: "age"), .removed)
            person.age = 1
            person.name = "n"
        }
        XCTAssertEqual(log.all, [expectedCall("p", observer: observer, object: person, keyPath: "name", new: "n")])
        XCTAssertFalse(controller.isObserving(person, keyPath: "age"))
        XCTAssertTrue(controller.isObserving(person, keyPath: "name"))
        XCTAssertEqual(controller.registrationCount, 1)
        XCTAssertEqual(person.observationCount(forKeyPath: "age"), 0)
        XCTAssertEqual(person.observationCount(forKeyPath: "name"), 1)
        XCTAssertEqual(sink.records, [])
    }

    func testUnobserveOneObjectLeavesOtherObjectsFiring() {
        let observer = GuardTestObserver()
        let (sink, controller) = makeController(for: observer)
        let first = Person()
        let second = Person()
        let log = HandlerLog()
        assertNoMisuse {
            makeLogged(controller, first, ["name", "age"], tag: "first", log: log)
            makeLogged(controller, second, ["name", "age"], tag: "second", log: log)
            XCTAssertEqual(controller.unobserve(first), .removed)
            first.age = 1
            first.name = "f"
            second.age = 2
            second.name = "s"
        }
        XCTAssertEqual(
            log.all,
            [
                expectedCall("second", observer: observer, object: second, keyPath: "age", new: 2),
                expectedCall("second", observer: observer, object: second, keyPath: "name", new: "s"),
            ])
        XCTAssertEqual(controller.observedKeyPaths(of: first), [])
        XCTAssertEqual(controller.observedKeyPaths(of: second), ["age", "name"])
        XCTAssertEqual(controller.registrationCount, 2)
        XCTAssertEqual(first.observationCount, 0)
        XCTAssertEqual(second.observationCount, 2)
        XCTAssertEqual(sink.records, [])
    }

    func testUnobserveAllStopsEverythingAndIsSilentEvenWhenEmpty() {
        let observer = GuardTestObserver()
        let (sink, controller) = makeController(for: observer)
        let first = Person()
        let second = Person()
        let log = HandlerLog()
        let baseline = liveObservances
        assertNoMisuse {
            controller.unobserveAll()  // nothing registered: not a mistake
            makeLogged(controller, first, ["name", "age"], tag: "first", log: log)
            makeLogged(controller, second, ["nickname"], tag: "second", log: log)
            XCTAssertEqual(liveObservances, baseline + 3)
            controller.unobserveAll()
            controller.unobserveAll()
            first.age = 1
            first.name = "f"
            second.nickname = "s"
        }
        XCTAssertEqual(log.all, [])
        XCTAssertEqual(controller.registrationCount, 0)
        XCTAssertEqual(first.observationCount + second.observationCount, 0)
        XCTAssertEqual(liveObservances, baseline)
        XCTAssertEqual(sink.records, [])
    }

    func testDoubleRemovalIsALoggedNoOpEachTime() {
        let observer = GuardTestObserver()
        let (sink, controller) = makeController(for: observer)
        let person = Person()
        let log = HandlerLog()
        var lines: [Int] = []
        assertNoMisuse {
            makeLogged(controller, person, ["age"], tag: "p", log: log)
            XCTAssertEqual(controller.unobserve(person, keyPath: "age"), .removed)
            let (second, line2) = (controller.unobserve(person, keyPath: "age"), #line)
            let (third, line3) = (controller.unobserve(person, keyPath: "age"), #line)
            XCTAssertEqual(second, .alreadyRemoved)
            XCTAssertEqual(third, .alreadyRemoved)
            lines = [line2, line3]
            person.age = 1
        }
        XCTAssertEqual(log.all, [])
        XCTAssertEqual(
            sink.records,
            [
                expectedDiagnostic(.doubleRemoval, object: person, keyPath: "age", line: lines[0]),
                expectedDiagnostic(.doubleRemoval, object: person, keyPath: "age", line: lines[1]),
            ])
        XCTAssertEqual(sink.count(of: .doubleRemoval), 2)
        XCTAssertEqual(sink.count(of: .removalOfUnregistered), 0)
    }

    func testRemovalOfSomethingNeverRegisteredIsToldApartFromDoubleRemoval() {
        let observer = GuardTestObserver()
        let (sink, controller) = makeController(for: observer)
        let person = Person()
        let stranger = Person()
        let log = HandlerLog()
        var lines: [Int] = []
        assertNoMisuse {
            let (neverAny, line1) = (controller.unobserve(person, keyPath: "age"), #line)
            XCTAssertEqual(neverAny, .notRegistered)
            makeLogged(controller, person, ["age"], tag: "p", log: log)
            controller.unobserve(person, keyPath: "age")
            // Same object, another key path that was never registered: not a double removal.
            let (otherKey, line2) = (controller.unobserve(person, keyPath: "name"), #line)
            XCTAssertEqual(otherKey, .notRegistered)
            // Another object of the same type, same key path: not a double removal either.
            let (otherObject, line3) = (controller.unobserve(stranger, keyPath: "age"), #line)
            XCTAssertEqual(otherObject, .notRegistered)
            let (again, line4) = (controller.unobserve(person, keyPath: "age"), #line)
            XCTAssertEqual(again, .alreadyRemoved)
            lines = [line1, line2, line3, line4]
        }
        XCTAssertEqual(log.all, [])
        XCTAssertEqual(
            sink.records,
            [
                expectedDiagnostic(.removalOfUnregistered, object: person, keyPath: "age", line: lines[0]),
                expectedDiagnostic(.removalOfUnregistered, object: person, keyPath: "name", line: lines[1]),
                expectedDiagnostic(.removalOfUnregistered, object: stranger, keyPath: "age", line: lines[2]),
                expectedDiagnostic(.doubleRemoval, object: person, keyPath: "age", line: lines[3]),
            ])
    }

    func testUnobserveObjectVariantsOfDoubleRemovalAndNeverRegistered() {
        let observer = GuardTestObserver()
        let (sink, controller) = makeController(for: observer)
        let person = Person()
        let stranger = Person()
        let log = HandlerLog()
        var lines: [Int] = []
        assertNoMisuse {
            makeLogged(controller, person, ["age", "name"], tag: "p", log: log)
            XCTAssertEqual(controller.unobserve(person), .removed)
            let (twice, line1) = (controller.unobserve(person), #line)
            XCTAssertEqual(twice, .alreadyRemoved)
            let (never, line2) = (controller.unobserve(stranger), #line)
            XCTAssertEqual(never, .notRegistered)
            // A key path removed by unobserve(object) is a double removal when removed by name afterwards.
            let (byName, line3) = (controller.unobserve(person, keyPath: "name"), #line)
            XCTAssertEqual(byName, .alreadyRemoved)
            person.age = 1
            person.name = "n"
            lines = [line1, line2, line3]
        }
        XCTAssertEqual(log.all, [])
        XCTAssertEqual(
            sink.records,
            [
                expectedDiagnostic(.doubleRemoval, object: person, keyPath: nil, line: lines[0]),
                expectedDiagnostic(.removalOfUnregistered, object: stranger, keyPath: nil, line: lines[1]),
                expectedDiagnostic(.doubleRemoval, object: person, keyPath: "name", line: lines[2]),
            ])
        XCTAssertEqual(person.observationCount, 0)
    }

    func testUnobserveObjectRemovesOnlyWhatIsLeftAndReportsRemoved() {
        let observer = GuardTestObserver()
        let (sink, controller) = makeController(for: observer)
        let person = Person()
        let log = HandlerLog()
        assertNoMisuse {
            makeLogged(controller, person, ["age", "name"], tag: "p", log: log)
            XCTAssertEqual(controller.unobserve(person, keyPath: "age"), .removed)
            XCTAssertEqual(controller.unobserve(person), .removed, "name was still registered")
            person.name = "n"
        }
        XCTAssertEqual(log.all, [])
        XCTAssertEqual(sink.records, [])
        XCTAssertEqual(controller.registrationCount, 0)
    }

    func testRemovalsAfterUnobserveAllAreDoubleRemovals() {
        let observer = GuardTestObserver()
        let (sink, controller) = makeController(for: observer)
        let person = Person()
        let log = HandlerLog()
        var lines: [Int] = []
        assertNoMisuse {
            makeLogged(controller, person, ["age"], tag: "p", log: log)
            controller.unobserveAll()
            let (byName, line1) = (controller.unobserve(person, keyPath: "age"), #line)
            let (byObject, line2) = (controller.unobserve(person), #line)
            XCTAssertEqual(byName, .alreadyRemoved)
            XCTAssertEqual(byObject, .alreadyRemoved)
            lines = [line1, line2]
        }
        XCTAssertEqual(
            sink.records,
            [
                expectedDiagnostic(.doubleRemoval, object: person, keyPath: "age", line: lines[0]),
                expectedDiagnostic(.doubleRemoval, object: person, keyPath: nil, line: lines[1]),
            ])
        XCTAssertEqual(log.all, [])
    }

    func testReobservingAfterRemovalWorksAndRemovesCleanlyAgain() {
        let observer = GuardTestObserver()
        let (sink, controller) = makeController(for: observer)
        let person = Person()
        let log = HandlerLog()
        var line = 0
        assertNoMisuse {
            makeLogged(controller, person, ["age"], tag: "one", log: log)
            person.age = 1
            XCTAssertEqual(controller.unobserve(person, keyPath: "age"), .removed)
            person.age = 2
            makeLogged(controller, person, ["age"], tag: "two", log: log)
            person.age = 3
            XCTAssertEqual(
                controller.unobserve(person, keyPath: "age"), .removed, "a fresh registration, not a double removal")
            person.age = 4
            // And through unobserve(object) / unobserveAll as well.
            makeLogged(controller, person, ["age"], tag: "three", log: log)
            person.age = 5
            XCTAssertEqual(controller.unobserve(person), .removed)
            makeLogged(controller, person, ["age"], tag: "four", log: log)
            person.age = 6
            controller.unobserveAll()
            makeLogged(controller, person, ["age"], tag: "five", log: log)
            person.age = 7
            XCTAssertEqual(controller.unobserve(person, keyPath: "age"), .removed)
            let (result, resultLine) = (controller.unobserve(person, keyPath: "age"), #line)
            XCTAssertEqual(result, .alreadyRemoved)
            line = resultLine
            person.age = 8
        }
        XCTAssertEqual(
            log.all,
            [
                expectedCall("one", observer: observer, object: person, keyPath: "age", new: 1),
                expectedCall("two", observer: observer, object: person, keyPath: "age", new: 3),
                expectedCall("three", observer: observer, object: person, keyPath: "age", new: 5),
                expectedCall("four", observer: observer, object: person, keyPath: "age", new: 6),
                expectedCall("five", observer: observer, object: person, keyPath: "age", new: 7),
            ])
        XCTAssertEqual(sink.records, [expectedDiagnostic(.doubleRemoval, object: person, keyPath: "age", line: line)])
        XCTAssertEqual(person.observationCount, 0)
    }

    func testRemovalHistoryIsPerController() {
        let observerA = GuardTestObserver("a")
        let observerB = GuardTestObserver("b")
        let (sinkA, controllerA) = makeController(for: observerA)
        let (sinkB, controllerB) = makeController(for: observerB)
        let person = Person()
        let log = HandlerLog()
        var line = 0
        assertNoMisuse {
            makeLogged(controllerA, person, ["age"], tag: "a", log: log)
            controllerA.unobserve(person, keyPath: "age")
            let (result, resultLine) = (controllerB.unobserve(person, keyPath: "age"), #line)
            XCTAssertEqual(result, .notRegistered)
            line = resultLine
        }
        XCTAssertEqual(sinkA.records, [])
        XCTAssertEqual(
            sinkB.records, [expectedDiagnostic(.removalOfUnregistered, object: person, keyPath: "age", line: line)])
        XCTAssertEqual(log.all, [])
    }

    func testRemovingFromAForeignObjectTypeIsNotRegistered() {
        let observer = GuardTestObserver()
        let (sink, controller) = makeController(for: observer)
        let foreign = NSObject()
        var lines: [Int] = []
        assertNoMisuse {
            let (byName, line1) = (controller.unobserve(foreign, keyPath: "age"), #line)
            let (byObject, line2) = (controller.unobserve(foreign), #line)
            XCTAssertEqual(byName, .notRegistered)
            XCTAssertEqual(byObject, .notRegistered)
            lines = [line1, line2]
        }
        XCTAssertEqual(
            sink.records,
            [
                expectedDiagnostic(.removalOfUnregistered, object: foreign, keyPath: "age", line: lines[0]),
                expectedDiagnostic(.removalOfUnregistered, object: foreign, keyPath: nil, line: lines[1]),
            ])
    }
}
