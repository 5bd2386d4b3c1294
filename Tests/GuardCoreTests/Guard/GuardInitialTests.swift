import Foundation
import GuardCore
import XCTest

/// `.initial`: delivered exactly once, before `observe` returns, on the calling thread; and unobserve /
/// unobserveAll / controller release inside the initial callback (radar 34307466, FBKVOController issue #57),
/// including from another thread at the same moment.
final class GuardInitialTests: XCTestCase {
    func testInitialIsDeliveredOnceBeforeObserveReturnsOnTheCallingThread() {
        let observer = GuardTestObserver()
        let (sink, controller) = makeController(for: observer)
        let person = Person()
        person.age = 41
        let log = HandlerLog()
        let returned = LockedBox(false)
        let sawReturned = LockedBox<[Bool]>([])
        assertNoMisuse {
            let result = controller.observe(person, keyPath: "age", options: [.initial, .new]) {
                observer, object, change in
                sawReturned.mutate { $0.append(returned.value) }
                log.record("h", observer, object, change)
            }
            returned.value = true
            XCTAssertEqual(result, .registered)
            XCTAssertEqual(log.count, 1)
            person.age = 42
        }
        XCTAssertEqual(sawReturned.value, [false, true])
        XCTAssertEqual(
            log.all,
            [
                expectedCall("h", observer: observer, object: person, keyPath: "age", new: 41),
                expectedCall("h", observer: observer, object: person, keyPath: "age", new: 42),
            ])
        XCTAssertTrue(log.threads.first === Thread.current)
        XCTAssertEqual(sink.records, [])
    }

    func testInitialFromABackgroundThreadRunsOnThatThread() {
        let observer = GuardTestObserver()
        let (sink, controller) = makeController(for: observer)
        let person = Person()
        let log = HandlerLog()
        let callingThread = LockedBox<Thread?>(nil)
        assertNoMisuse {
            let outcome = onOtherThread { () -> (ObserveResult, Int) in
                callingThread.value = Thread.current
                let result = controller.observe(
                    person, keyPath: "name", options: [.initial, .new], handler: log.recording("h"))
                return (result, log.count)
            }
            XCTAssertEqual(outcome?.0, .registered)
            XCTAssertEqual(outcome?.1, 1, "delivered before observe returned on the calling thread")
        }
        XCTAssertEqual(log.all, [expectedCall("h", observer: observer, object: person, keyPath: "name", new: "")])
        XCTAssertEqual(log.threads.count, 1)
        XCTAssertTrue(log.threads.first === callingThread.value)
        XCTAssertFalse(log.threads.first === Thread.current)
        XCTAssertEqual(sink.records, [])
    }

    func testUnobserveInsideTheInitialHandlerIsACleanRemoval() {
        let (observer, sink, controller) = makeOwnedController()
        let person = Person()
        let log = HandlerLog()
        let innerResults = LockedBox<[UnobserveResult]>([])
        let baseline = liveObservances
        var line = 0
        withDeadlockWatchdog("unobserve inside .initial") {
            assertNoMisuse {
                let result = controller.observe(person, keyPath: "age", options: [.initial, .new, .old, .prior]) {
                    observer, object, change in
                    log.record("h", observer, object, change)
                    if let result = observer.controller?.unobserve(object, keyPath: "age") {
                        innerResults.mutate { $0.append(result) }
                    }
                }
                XCTAssertEqual(result, .registered)
                XCTAssertEqual(controller.registrationCount, 0)
                XCTAssertEqual(
                    person.observationCount, 0, "the runtime registration made after the callback is gone too")
                XCTAssertEqual(liveObservances, baseline)
                person.age = 1
                person.age = 2
                line = #line + 1
                XCTAssertEqual(controller.unobserve(person, keyPath: "age"), .alreadyRemoved)
            }
        }
        XCTAssertEqual(innerResults.value, [.removed])
        XCTAssertEqual(log.all, [expectedCall("h", observer: observer, object: person, keyPath: "age", new: 0)])
        XCTAssertEqual(sink.records, [expectedDiagnostic(.doubleRemoval, object: person, keyPath: "age", line: line)])
        observer.controller = nil
    }

    func testUnobserveThenObserveAgainInsideTheInitialHandler() {
        // Inside its own initial callback the registration is removed and a new one for the same key is made (whose
        // own initial callback runs nested). The first observe must then take out only its own runtime registration.
        let (observer, sink, controller) = makeOwnedController()
        let person = Person()
        let log = HandlerLog()
        let inner = LockedBox<[String]>([])
        let baseline = liveObservances
        withDeadlockWatchdog("re-observe inside .initial") {
            assertNoMisuse {
                let result = controller.observe(person, keyPath: "age", options: [.initial, .new]) {
                    observer, object, change in
                    log.record("first", observer, object, change)
                    guard let controller = observer.controller else { return }
                    let removal = controller.unobserve(object, keyPath: "age")
                    let again = controller.observe(
                        object, keyPath: "age", options: [.initial, .new, .old], handler: log.recording("second"))
                    inner.mutate { $0 += ["\(removal)", "\(again)"] }
                }
                XCTAssertEqual(result, .registered)
                XCTAssertEqual(controller.registrationCount, 1)
                XCTAssertEqual(person.observationCount, 1, "only the second registration is left in the runtime")
                XCTAssertEqual(liveObservances, baseline + 1)
                person.age = 1
            }
        }
        XCTAssertEqual(inner.value, ["removed", "registered"])
        XCTAssertEqual(
            log.all,
            [
                expectedCall("first", observer: observer, object: person, keyPath: "age", new: 0),
                expectedCall("second", observer: observer, object: person, keyPath: "age", new: 0),
                expectedCall("second", observer: observer, object: person, keyPath: "age", old: 0, new: 1),
            ])
        XCTAssertEqual(sink.records, [])
        observer.controller = nil
        assertNoMisuse { controller.unobserveAll() }
        XCTAssertEqual(liveObservances, baseline)
    }

    func testUnobserveObjectAndUnobserveAllInsideTheInitialHandler() {
        for useUnobserveAll in [false, true] {
            let (observer, sink, controller) = makeOwnedController()
            let person = Person()
            let other = Person()
            let log = HandlerLog()
            let baseline = liveObservances
            withDeadlockWatchdog("unobserve(object) / unobserveAll inside .initial") {
                assertNoMisuse {
                    controller.observe(person, keyPath: "name", options: .new, handler: log.recording("name"))
                    controller.observe(other, keyPath: "age", options: .new, handler: log.recording("other"))
                    let result = controller.observe(person, keyPath: "age", options: [.initial, .new]) {
                        observer, object, change in
                        log.record("age", observer, object, change)
                        if useUnobserveAll {
                            observer.controller?.unobserveAll()
                        } else {
                            XCTAssertEqual(observer.controller?.unobserve(object), .removed)
                        }
                    }
                    XCTAssertEqual(result, .registered)
                    person.age = 1
                    person.name = "n"
                    other.age = 2
                }
            }
            var expected = [expectedCall("age", observer: observer, object: person, keyPath: "age", new: 0)]
            if !useUnobserveAll {
                expected.append(expectedCall("other", observer: observer, object: other, keyPath: "age", new: 2))
            }
            XCTAssertEqual(log.all, expected, "unobserveAll: \(useUnobserveAll)")
            XCTAssertEqual(person.observationCount, 0)
            XCTAssertEqual(other.observationCount, useUnobserveAll ? 0 : 1)
            XCTAssertEqual(controller.registrationCount, useUnobserveAll ? 0 : 1)
            XCTAssertEqual(liveObservances, baseline + (useUnobserveAll ? 0 : 1))
            XCTAssertEqual(sink.records, [])
            observer.controller = nil
            assertNoMisuse { controller.unobserveAll() }
            XCTAssertEqual(liveObservances, baseline)
            XCTAssertEqual(sink.records, [])
        }
    }

    func testReleasingTheControllerInsideTheInitialHandler() {
        let observer = GuardTestObserver()
        let sink = CountingSink()
        let person = Person()
        let log = HandlerLog()
        let baseline = liveObservances
        weak var weakController: ObservationController<GuardTestObserver>?
        withDeadlockWatchdog("controller release inside .initial") {
            assertNoMisuse {
                do {
                    let controller = ObservationController(observer: observer, diagnosticSink: sink)
                    weakController = controller
                    observer.controller = controller
                }
                let result = observer.controller?.observe(person, keyPath: "age", options: [.initial, .new]) {
                    observer, object, change in
                    log.record("h", observer, object, change)
                    observer.controller = nil  // drop the only stored reference inside the initial callback
                }
                XCTAssertEqual(result, .registered)
                XCTAssertNil(weakController, "gone once observe returned")
                XCTAssertEqual(person.observationCount, 0)
                person.age = 1
            }
        }
        XCTAssertEqual(log.all, [expectedCall("h", observer: observer, object: person, keyPath: "age", new: 0)])
        XCTAssertEqual(liveObservances, baseline)
        XCTAssertEqual(sink.records, [])
    }

    /// Another thread unobserves while the observing thread is parked inside its initial handler.
    func testUnobserveFromAnotherThreadWhileTheInitialHandlerRuns() {
        let observer = GuardTestObserver()
        let (sink, controller) = makeController(for: observer)
        let person = Person()
        let log = HandlerLog()
        let inInitial = DispatchSemaphore(value: 0)
        let proceed = DispatchSemaphore(value: 0)
        let observeResult = LockedBox<ObserveResult?>(nil)
        let baseline = liveObservances
        var line = 0
        withDeadlockWatchdog("cross-thread unobserve during .initial") {
            assertNoMisuse {
                let observing = DispatchGroup()
                DispatchQueue(label: "guard-tests.initial-observer").async(group: observing) {
                    let gate = LockedBox(true)
                    observeResult.value = controller.observe(person, keyPath: "age", options: [.initial, .new]) {
                        observer, object, change in
                        log.record("h", observer, object, change)
                        if gate.mutate({
                            let first = $0
                            $0 = false
                            return first
                        }) {
                            inInitial.signal()
                            proceed.wait()
                        }
                    }
                }
                inInitial.wait()
                // The observing thread is inside its initial callback, its observe call still running.
                XCTAssertEqual(controller.unobserve(person, keyPath: "age"), .removed)
                XCTAssertEqual(controller.registrationCount, 0)
                person.age = 1  // after unobserve returned: must never be delivered
                proceed.signal()
                observing.wait()
                person.age = 2
                line = #line + 1
                XCTAssertEqual(controller.unobserve(person, keyPath: "age"), .alreadyRemoved)
            }
        }
        XCTAssertEqual(observeResult.value, .registered)
        XCTAssertEqual(log.all, [expectedCall("h", observer: observer, object: person, keyPath: "age", new: 0)])
        XCTAssertEqual(controller.registrationCount, 0)
        XCTAssertEqual(person.observationCount, 0)
        XCTAssertEqual(liveObservances, baseline)
        XCTAssertEqual(sink.records, [expectedDiagnostic(.doubleRemoval, object: person, keyPath: "age", line: line)])
    }

    /// The observing thread is paused after the runtime inserted its registration but before the guard published it
    /// (and before it read the initial value). Another thread cancels the registration there; a change made after
    /// that reaches the runtime registration and must be dropped by the guard. The observe still reports
    /// `.registered` (it took effect before the removal) and still delivers its initial notification, with the value
    /// read after the insert.
    func testChangeInTheWindowAfterRuntimeInsertOfACancelledRegistrationIsDropped() {
        let observer = GuardTestObserver()
        let (sink, controller) = makeController(for: observer)
        let person = Person()
        let log = HandlerLog()
        let pause = SchedulePause(at: .guardAfterRegister)
        defer { pause.uninstall() }
        let baseline = liveObservances
        let observeResult = LockedBox<ObserveResult?>(nil)
        withDeadlockWatchdog("change during the post-register window") {
            assertNoMisuse {
                let observing = pause.runOnPausedThread(label: "guard-tests.paused-observer") {
                    observeResult.value = controller.observe(
                        person, keyPath: "age", options: [.initial, .new], handler: log.recording("h"))
                }
                XCTAssertEqual(person.observationCount, 1, "the runtime holds the registration during the window")
                XCTAssertEqual(controller.unobserve(person, keyPath: "age"), .removed)
                person.age = 5  // reaches the runtime registration; the guard must drop it
                pause.resume()
                observing.wait()
                person.age = 6
            }
        }
        XCTAssertEqual(observeResult.value, .registered)
        XCTAssertEqual(log.all, [expectedCall("h", observer: observer, object: person, keyPath: "age", new: 5)])
        XCTAssertEqual(person.observationCount, 0)
        XCTAssertEqual(liveObservances, baseline)
        XCTAssertEqual(sink.records, [])
    }

    /// Same window: a change made while the registration is reserved reaches it (the registration exists) and is held
    /// back until the initial notification, then another thread removes the registration, which drops what it held;
    /// nothing after that removal is delivered, and the initial notification still comes, on the observing thread,
    /// with the value read after the insert (which shows both changes).
    func testUnobserveFromAnotherThreadInThePostRegisterWindow() {
        let observer = GuardTestObserver()
        let (sink, controller) = makeController(for: observer)
        let person = Person()
        let log = HandlerLog()
        let pause = SchedulePause(at: .guardAfterRegister)
        defer { pause.uninstall() }
        let baseline = liveObservances
        let observeResult = LockedBox<ObserveResult?>(nil)
        withDeadlockWatchdog("cross-thread unobserve during the post-register window") {
            assertNoMisuse {
                let observing = pause.runOnPausedThread(label: "guard-tests.paused-observer") {
                    observeResult.value = controller.observe(
                        person, keyPath: "age", options: [.initial, .new], handler: log.recording("h"))
                }
                person.age = 3  // the registration is live (pending): this change is held back for the initial
                XCTAssertEqual(log.count, 0, "nothing before the initial notification")
                XCTAssertEqual(controller.unobserve(person, keyPath: "age"), .removed)
                person.age = 4  // after unobserve returned: never delivered as a change (the initial value shows it)
                pause.resume()
                observing.wait()
                person.age = 5
            }
        }
        XCTAssertEqual(observeResult.value, .registered)
        XCTAssertEqual(log.all, [expectedCall("h", observer: observer, object: person, keyPath: "age", new: 4)])
        XCTAssertEqual(controller.registrationCount, 0)
        XCTAssertEqual(person.observationCount, 0)
        XCTAssertEqual(liveObservances, baseline)
        XCTAssertEqual(sink.records, [])
    }

    func testRepeatedInitialUnobserveRaceWithAnotherThread() {
        // Many rounds of: thread A observes with .initial and parks in the callback; thread B unobserves.
        let observer = GuardTestObserver()
        let (sink, controller) = makeController(for: observer)
        let log = HandlerLog()
        let baseline = liveObservances
        let rounds = 200
        withDeadlockWatchdog("repeated .initial races") {
            assertNoMisuse {
                for round in 0..<rounds {
                    let person = Person()
                    let inInitial = DispatchSemaphore(value: 0)
                    let proceed = DispatchSemaphore(value: 0)
                    let observing = DispatchGroup()
                    let result = LockedBox<ObserveResult?>(nil)
                    DispatchQueue.global().async(group: observing) {
                        result.value = controller.observe(person, keyPath: "age", options: .initial) {
                            observer, object, change in
                            log.record("r\(round)", observer, object, change)
                            inInitial.signal()
                            proceed.wait()
                        }
                    }
                    inInitial.wait()
                    let removal = controller.unobserve(person, keyPath: "age")
                    person.age = round
                    proceed.signal()
                    observing.wait()
                    XCTAssertEqual(result.value, .registered)
                    XCTAssertEqual(removal, .removed)
                    XCTAssertEqual(person.observationCount, 0)
                }
            }
        }
        XCTAssertEqual(log.all.map(\.tag), (0..<rounds).map { "r\($0)" }, "exactly the initial notifications")
        XCTAssertEqual(controller.registrationCount, 0)
        XCTAssertEqual(liveObservances, baseline)
        XCTAssertEqual(sink.records, [])
    }
}
