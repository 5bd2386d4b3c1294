import Foundation
import GuardCore
import XCTest

/// Deduplication by (controller, object identity, key path): a duplicate is a logged no-op and the first
/// registration stays exactly as it was.
final class GuardDeduplicationTests: XCTestCase {
    func testDuplicateKeepsTheFirstRegistrationsOptionsAndHandler() {
        let observer = GuardTestObserver()
        let (sink, controller) = makeController(for: observer)
        let person = Person()
        let log = HandlerLog()
        var line = 0
        assertNoMisuse {
            XCTAssertEqual(
                controller.observe(person, keyPath: "age", options: .new, handler: log.recording("first")), .registered)
            line = #line + 1
            let second = controller.observe(
                person, keyPath: "age", options: [.initial, .old, .prior], handler: log.recording("second"))
            XCTAssertEqual(second, .duplicate)
            XCTAssertEqual(log.all, [], "the duplicate's .initial must not run")
            person.age = 1
            person.age = 2
        }
        XCTAssertEqual(
            log.all,
            [
                expectedCall("first", observer: observer, object: person, keyPath: "age", new: 1),
                expectedCall("first", observer: observer, object: person, keyPath: "age", new: 2),
            ])
        XCTAssertEqual(
            sink.records, [expectedDiagnostic(.duplicateObservation, object: person, keyPath: "age", line: line)])
        XCTAssertEqual(controller.registrationCount, 1)
        XCTAssertEqual(person.observationCount(forKeyPath: "age"), 1, "the runtime saw one registration only")
    }

    func testEveryDuplicateIsOneEventAndOneRemovalUndoesTheSingleRegistration() {
        let observer = GuardTestObserver()
        let (sink, controller) = makeController(for: observer)
        let person = Person()
        let log = HandlerLog()
        var lines: [Int] = []
        assertNoMisuse {
            controller.observe(person, keyPath: "name", options: .new, handler: log.recording("h"))
            for _ in 0..<3 {
                lines.append(#line + 1)
                let result = controller.observe(person, keyPath: "name") { _, _, _ in XCTFail("duplicate handler ran") }
                XCTAssertEqual(result, .duplicate)
            }
            person.name = "once"
            XCTAssertEqual(controller.unobserve(person, keyPath: "name"), .removed)
            person.name = "gone"
        }
        XCTAssertEqual(log.all, [expectedCall("h", observer: observer, object: person, keyPath: "name", new: "once")])
        XCTAssertEqual(
            sink.records,
            lines.map { expectedDiagnostic(.duplicateObservation, object: person, keyPath: "name", line: $0) })
        XCTAssertEqual(person.observationCount, 0)
    }

    func testForwardingDuplicateKeepsTheFirstContext() {
        let recorder = Recorder()
        let (sink, controller) = makeController(for: recorder)
        let person = Person()
        var line = 0
        assertNoMisuse {
            XCTAssertEqual(
                controller.observe(person, keyPath: "age", options: .new, context: Contexts.first), .registered)
            line = #line + 1
            let second = controller.observe(person, keyPath: "age", options: .old, context: Contexts.second)
            XCTAssertEqual(second, .duplicate)
            person.age = 3
        }
        XCTAssertEqual(recorder.received.map(\.context), [Contexts.first])
        XCTAssertEqual(recorder.received.map { GuardValue.of($0.change.newValue) }, [3])
        XCTAssertEqual(recorder.received.map { GuardValue.of($0.change.oldValue) }, [.absent])
        XCTAssertEqual(
            sink.records,
            [
                expectedDiagnostic(
                    .duplicateObservation, observerType: Recorder.self, object: person, keyPath: "age", line: line)
            ])
    }

    func testTypedAndStringKeyPathsShareTheDedupKey() {
        let observer = GuardTestObserver()
        let (sink, controller) = makeController(for: observer)
        let person = Person()
        let log = HandlerLog()
        var line = 0
        assertNoMisuse {
            XCTAssertEqual(
                controller.observe(person, \.age, options: .new) { observer, object, change in
                    log.record("typed", observer, object, change.change)
                }, .registered)
            line = #line + 1
            let second = controller.observe(person, keyPath: "age") { _, _, _ in XCTFail("duplicate handler ran") }
            XCTAssertEqual(second, .duplicate)
            person.age = 8
        }
        XCTAssertEqual(log.all, [expectedCall("typed", observer: observer, object: person, keyPath: "age", new: 8)])
        XCTAssertEqual(
            sink.records, [expectedDiagnostic(.duplicateObservation, object: person, keyPath: "age", line: line)])
    }

    func testSameKeyPathOnTwoObjectsIsTwoIndependentRegistrations() {
        let observer = GuardTestObserver()
        let (sink, controller) = makeController(for: observer)
        let first = Person()
        let second = Person()
        let log = HandlerLog()
        assertNoMisuse {
            XCTAssertEqual(
                controller.observe(first, keyPath: "age", options: .new, handler: log.recording("first")), .registered)
            XCTAssertEqual(
                controller.observe(second, keyPath: "age", options: [.new, .old], handler: log.recording("second")),
                .registered)
            first.age = 1
            second.age = 2
            XCTAssertEqual(controller.unobserve(first, keyPath: "age"), .removed)
            first.age = 3
            second.age = 4
        }
        XCTAssertEqual(
            log.all,
            [
                expectedCall("first", observer: observer, object: first, keyPath: "age", new: 1),
                expectedCall("second", observer: observer, object: second, keyPath: "age", old: 0, new: 2),
                expectedCall("second", observer: observer, object: second, keyPath: "age", old: 2, new: 4),
            ])
        XCTAssertEqual(controller.registrationCount, 1)
        XCTAssertTrue(controller.isObserving(second, keyPath: "age"))
        XCTAssertFalse(controller.isObserving(first, keyPath: "age"))
        XCTAssertEqual(sink.records, [])
    }

    func testTwoControllersOnOneObjectAreIndependent() {
        let observerA = GuardTestObserver("a")
        let observerB = GuardTestObserver("b")
        let (sinkA, controllerA) = makeController(for: observerA)
        let (sinkB, controllerB) = makeController(for: observerB)
        let person = Person()
        let log = HandlerLog()
        var line = 0
        assertNoMisuse {
            XCTAssertEqual(
                controllerA.observe(person, keyPath: "age", options: .new, handler: log.recording("a")), .registered)
            XCTAssertEqual(
                controllerB.observe(person, keyPath: "age", options: .old, handler: log.recording("b")), .registered,
                "another controller's registration is not a duplicate")
            XCTAssertEqual(person.observationCount(forKeyPath: "age"), 2)
            person.age = 1
            line = #line + 1
            let second = controllerA.observe(person, keyPath: "age") { _, _, _ in XCTFail("duplicate handler ran") }
            XCTAssertEqual(second, .duplicate)
            XCTAssertEqual(controllerA.unobserve(person, keyPath: "age"), .removed)
            person.age = 2
            controllerA.unobserveAll()
            person.age = 3
        }
        XCTAssertEqual(
            log.all,
            [
                // The newest registration hears a change first.
                expectedCall("b", observer: observerB, object: person, keyPath: "age", old: 0),
                expectedCall("a", observer: observerA, object: person, keyPath: "age", new: 1),
                expectedCall("b", observer: observerB, object: person, keyPath: "age", old: 1),
                expectedCall("b", observer: observerB, object: person, keyPath: "age", old: 2),
            ])
        XCTAssertEqual(
            sinkA.records, [expectedDiagnostic(.duplicateObservation, object: person, keyPath: "age", line: line)])
        XCTAssertEqual(sinkB.records, [])
        XCTAssertEqual(controllerA.registrationCount, 0)
        XCTAssertEqual(controllerB.registrationCount, 1)
        XCTAssertEqual(person.observationCount(forKeyPath: "age"), 1)
    }

    func testDuplicateObserveInsideTheFirstRegistrationsInitialHandler() {
        let (observer, sink, controller) = makeOwnedController()
        let person = Person()
        let log = HandlerLog()
        let innerResult = LockedBox<ObserveResult?>(nil)
        let innerLine = LockedBox(0)
        assertNoMisuse {
            let result = controller.observe(person, keyPath: "age", options: [.initial, .new]) {
                observer, object, change in
                log.record("outer", observer, object, change)
                guard innerResult.value == nil else { return }
                innerLine.value = #line + 1
                innerResult.value = observer.controller?.observe(
                    object, keyPath: "age", options: .new, handler: log.recording("inner"))
            }
            XCTAssertEqual(result, .registered)
            person.age = 1
        }
        XCTAssertEqual(innerResult.value, .duplicate, "the registration in progress already holds the key")
        XCTAssertEqual(
            log.all,
            [
                expectedCall("outer", observer: observer, object: person, keyPath: "age", new: 0),
                expectedCall("outer", observer: observer, object: person, keyPath: "age", new: 1),
            ])
        XCTAssertEqual(
            sink.records,
            [expectedDiagnostic(.duplicateObservation, object: person, keyPath: "age", line: innerLine.value)])
        observer.controller = nil
    }
}
