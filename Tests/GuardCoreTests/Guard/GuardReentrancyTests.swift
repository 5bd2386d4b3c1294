import Foundation
import GuardCore
import XCTest

/// Handlers that call back into their controller: observe, unobserve, unobserveAll, mutate, release the controller.
/// Handlers run outside every guard lock, so none of this may deadlock (a watchdog turns a hang into a failure).
final class GuardReentrancyTests: XCTestCase {
    func testObservingAnotherKeyPathInsideAHandler() {
        let (observer, sink, controller) = makeOwnedController()
        let person = Person()
        let log = HandlerLog()
        let innerResults = LockedBox<[ObserveResult]>([])
        withDeadlockWatchdog("observe inside a handler") {
            assertNoMisuse {
                controller.observe(person, keyPath: "age", options: .new) { observer, object, change in
                    log.record("age", observer, object, change)
                    let result = observer.controller?.observe(
                        object, keyPath: "name", options: [.initial, .new], handler: log.recording("name"))
                    innerResults.mutate { $0.append(result ?? .invalid(.nilObject)) }
                }
                person.name = "before"
                person.age = 1
                person.name = "after"
                person.age = 2
            }
        }
        XCTAssertEqual(innerResults.value, [.registered, .duplicate])
        XCTAssertEqual(
            log.all,
            [
                expectedCall("age", observer: observer, object: person, keyPath: "age", new: 1),
                expectedCall("name", observer: observer, object: person, keyPath: "name", new: "before"),
                expectedCall("name", observer: observer, object: person, keyPath: "name", new: "after"),
                expectedCall("age", observer: observer, object: person, keyPath: "age", new: 2),
            ])
        XCTAssertEqual(sink.records.map(\.kind), [.duplicateObservation])
        XCTAssertEqual(sink.records.map(\.keyPath), ["name"])
        XCTAssertEqual(controller.registrationCount, 2)
        observer.controller = nil
    }

    func testUnobservingItselfInsideAChangeHandler() {
        let (observer, sink, controller) = makeOwnedController()
        let person = Person()
        let log = HandlerLog()
        let innerResults = LockedBox<[UnobserveResult]>([])
        withDeadlockWatchdog("unobserve inside a handler") {
            assertNoMisuse {
                controller.observe(person, keyPath: "age", options: [.new, .prior]) { observer, object, change in
                    log.record("age", observer, object, change)
                    guard !change.isPrior else { return }
                    if let result = observer.controller?.unobserve(object, keyPath: "age") {
                        innerResults.mutate { $0.append(result) }
                    }
                }
                person.age = 1
                person.age = 2
                person.age = 3
            }
        }
        XCTAssertEqual(innerResults.value, [.removed])
        XCTAssertEqual(
            log.all,
            [
                expectedCall("age", observer: observer, object: person, keyPath: "age", prior: true),
                expectedCall("age", observer: observer, object: person, keyPath: "age", new: 1),
            ])
        XCTAssertEqual(controller.registrationCount, 0)
        XCTAssertEqual(person.observationCount, 0)
        XCTAssertEqual(sink.records, [])
        observer.controller = nil
    }

    func testUnobserveAllInsideAHandlerAlsoSilencesTheRestOfTheSameChange() {
        let (observer, sink, controller) = makeOwnedController()
        let person = Person()
        let other = Person()
        let log = HandlerLog()
        withDeadlockWatchdog("unobserveAll inside a handler") {
            assertNoMisuse {
                // firstName and fullName both change when firstName is set, and fullName hears first (change
                // notifications reverse the priors' order, which starts with the changed key); its handler clears the
                // controller.
                controller.observe(person, keyPath: "firstName", options: .new, handler: log.recording("first"))
                controller.observe(person, keyPath: "fullName", options: .new) { observer, object, change in
                    log.record("full", observer, object, change)
                    observer.controller?.unobserveAll()
                }
                controller.observe(other, keyPath: "age", options: .new, handler: log.recording("other"))
                person.firstName = "A"
                person.firstName = "B"
                other.age = 1
            }
        }
        // The firstName registration was removed (unobserveAll returned) before its turn in the same change came.
        XCTAssertEqual(
            log.all, [expectedCall("full", observer: observer, object: person, keyPath: "fullName", new: "A ")])
        XCTAssertEqual(controller.registrationCount, 0)
        XCTAssertEqual(person.observationCount + other.observationCount, 0)
        XCTAssertEqual(sink.records, [])
        observer.controller = nil
    }

    func testMutatingTheObservedObjectInsideTheHandlerRecursesBoundedly() {
        let (observer, sink, controller) = makeOwnedController()
        let person = Person()
        let log = HandlerLog()
        withDeadlockWatchdog("mutation inside a handler") {
            assertNoMisuse {
                controller.observe(person, keyPath: "age", options: [.old, .new]) { observer, object, change in
                    log.record("age", observer, object, change)
                    if let new = change.newValue(as: Int.self), new < 4 {
                        object.age = new + 1
                    }
                }
                controller.observe(person, keyPath: "name", options: .new) { observer, object, change in
                    log.record("name", observer, object, change)
                    if change.newValue(as: String.self) == "go" { object.age = 10 }
                }
                person.age = 1
                person.name = "go"
            }
        }
        XCTAssertEqual(person.age, 10)
        XCTAssertEqual(
            log.all,
            [
                expectedCall("age", observer: observer, object: person, keyPath: "age", old: 0, new: 1),
                expectedCall("age", observer: observer, object: person, keyPath: "age", old: 1, new: 2),
                expectedCall("age", observer: observer, object: person, keyPath: "age", old: 2, new: 3),
                expectedCall("age", observer: observer, object: person, keyPath: "age", old: 3, new: 4),
                expectedCall("name", observer: observer, object: person, keyPath: "name", new: "go"),
                expectedCall("age", observer: observer, object: person, keyPath: "age", old: 4, new: 10),
            ])
        XCTAssertEqual(sink.records, [])
        observer.controller = nil
    }

    func testReleasingTheControllerInsideAHandler() {
        let sink = CountingSink()
        let person = Person()
        let other = Person()
        let log = HandlerLog()
        let baseline = liveObservances
        let observer = GuardTestObserver()
        weak var weakController: ObservationController<GuardTestObserver>?
        withDeadlockWatchdog("controller release inside a handler") {
            assertNoMisuse {
                do {
                    let controller = ObservationController(observer: observer, diagnosticSink: sink)
                    observer.controller = controller
                    weakController = controller
                    controller.observe(person, keyPath: "age", options: .new) { observer, object, change in
                        log.record("age", observer, object, change)
                        observer.controller = nil  // the last reference: the controller deinitializes right here
                        log.record(
                            "after-release", observer, object,
                            KeyValueChange(kind: .setting, keyPath: observer.controller == nil ? "released" : "alive"))
                    }
                    controller.observe(other, keyPath: "name", options: .new, handler: log.recording("other"))
                }
                XCTAssertNotNil(weakController)
                person.age = 1
                XCTAssertNil(weakController, "released inside the handler")
                person.age = 2
                other.name = "x"
            }
        }
        XCTAssertEqual(
            log.all,
            [
                expectedCall("age", observer: observer, object: person, keyPath: "age", new: 1),
                expectedCall("after-release", observer: observer, object: person, keyPath: "released"),
            ])
        XCTAssertEqual(person.observationCount + other.observationCount, 0)
        XCTAssertEqual(liveObservances, baseline)
        XCTAssertEqual(sink.records, [])
    }

    func testUnobservingAnotherObjectAndQueryingInsideAHandler() {
        let (observer, sink, controller) = makeOwnedController()
        let person = Person()
        let other = Person()
        let log = HandlerLog()
        let seen = LockedBox<[String]>([])
        let removalLine = LockedBox(0)
        withDeadlockWatchdog("queries inside a handler") {
            assertNoMisuse {
                controller.observe(other, keyPath: "age", options: .new, handler: log.recording("other"))
                controller.observe(person, keyPath: "age", options: .new) { observer, object, change in
                    log.record("person", observer, object, change)
                    guard let controller = observer.controller else { return }
                    seen.mutate {
                        $0.append("count=\(controller.registrationCount)")
                        $0.append("observing=\(controller.isObserving(other, keyPath: "age"))")
                        $0.append("paths=\(controller.observedKeyPaths(of: other))")
                    }
                    let result = controller.unobserve(other, keyPath: "age")
                    seen.mutate { $0.append("unobserve=\(result)") }
                    removalLine.value = #line + 1
                    let again = controller.unobserve(other)
                    seen.mutate { $0.append("again=\(again)") }
                }
                person.age = 1
                other.age = 2
            }
        }
        XCTAssertEqual(
            seen.value, ["count=2", "observing=true", "paths=[\"age\"]", "unobserve=removed", "again=alreadyRemoved"])
        XCTAssertEqual(log.all, [expectedCall("person", observer: observer, object: person, keyPath: "age", new: 1)])
        XCTAssertEqual(
            sink.records, [expectedDiagnostic(.doubleRemoval, object: other, keyPath: nil, line: removalLine.value)])
        observer.controller = nil
    }

    func testHandlerOnAnotherThreadReentersWhileTheTestThreadAlsoUsesTheController() {
        let (observer, sink, controller) = makeOwnedController()
        let person = Person()
        let log = HandlerLog()
        let inHandler = DispatchSemaphore(value: 0)
        let proceed = DispatchSemaphore(value: 0)
        withDeadlockWatchdog("handler blocked on another thread") {
            assertNoMisuse {
                controller.observe(person, keyPath: "age", options: .new) { observer, object, change in
                    log.record("age", observer, object, change)
                    inHandler.signal()
                    proceed.wait()
                    observer.controller?.unobserve(object, keyPath: "age")
                }
                let worker = DispatchGroup()
                DispatchQueue(label: "guard-tests.reentrant-worker").async(group: worker) {
                    person.age = 1
                }
                inHandler.wait()
                // The handler is parked on the worker thread; the controller must stay fully usable here.
                XCTAssertEqual(controller.registrationCount, 1)
                XCTAssertEqual(
                    controller.observe(person, keyPath: "name", options: .new, handler: log.recording("name")),
                    .registered)
                person.name = "main"
                proceed.signal()
                worker.wait()
                person.age = 2
            }
        }
        XCTAssertEqual(
            log.all,
            [
                expectedCall("age", observer: observer, object: person, keyPath: "age", new: 1),
                expectedCall("name", observer: observer, object: person, keyPath: "name", new: "main"),
            ])
        XCTAssertEqual(controller.observedKeyPaths(of: person), ["name"])
        XCTAssertEqual(sink.records, [])
        observer.controller = nil
    }
}
