import Foundation
import GuardCore
import XCTest

/// A change that reaches a registration before its `.initial` notification has been delivered waits: the observing
/// thread delivers it right after the initial handler returns, before `observe` returns, in the order the changes were
/// made; the thread that made it goes on at once; a removal drops what was held.
final class GuardHeldChangeTests: XCTestCase {
    /// The initial handler sets the property itself: the change comes after the initial notification (not nested
    /// inside it), on the same thread, before `observe` returns, and the handler ends on the current value.
    func testASetInsideTheInitialHandlerIsDeliveredRightAfterIt() {
        let (observer, sink, controller) = makeOwnedController()
        defer { observer.controller = nil }
        let person = Person()
        let log = HandlerLog()
        let initialRunning = LockedBox(false)
        let nested = LockedBox<[Bool]>([])
        let returned = LockedBox(false)
        let deliveredBeforeReturn = LockedBox<[Bool]>([])
        assertNoMisuse {
            let result = controller.observe(person, keyPath: "age", options: [.initial, .new, .old]) {
                observer, object, change in
                nested.mutate { $0.append(initialRunning.value) }
                deliveredBeforeReturn.mutate { $0.append(!returned.value) }
                log.record("h", observer, object, change)
                if change.oldValue == nil {
                    initialRunning.value = true
                    object.age = 7
                    initialRunning.value = false
                }
            }
            returned.value = true
            XCTAssertEqual(result, .registered)
        }
        XCTAssertEqual(
            log.all,
            [
                expectedCall("h", observer: observer, object: person, keyPath: "age", new: 0),
                expectedCall("h", observer: observer, object: person, keyPath: "age", old: 0, new: 7),
            ])
        XCTAssertEqual(nested.value, [false, false], "the change did not run inside the initial handler")
        XCTAssertEqual(deliveredBeforeReturn.value, [true, true])
        XCTAssertEqual(Set(log.threads.map(ObjectIdentifier.init)), [ObjectIdentifier(Thread.current)])
        XCTAssertEqual(sink.records, [])
    }

    /// Another thread sets the property while the initial handler runs, and the handler waits for that set to finish
    /// (a semaphore handshake): the set returns at once (it never waits for the observing thread, so nothing
    /// deadlocks), and its change comes after the initial notification, on the observing thread, before `observe`
    /// returns. Then the registration behaves as usual.
    func testASetFromAnotherThreadDuringTheInitialHandlerComesAfterItOnTheObservingThread() {
        let observer = GuardTestObserver()
        let (sink, controller) = makeController(for: observer)
        let person = Person()
        let log = HandlerLog()
        let setterReturned = DispatchSemaphore(value: 0)
        let countWhenSetReturned = LockedBox(-1)
        withDeadlockWatchdog("a set from another thread during the initial handler") {
            assertNoMisuse {
                let result = controller.observe(person, keyPath: "age", options: [.initial, .new]) {
                    observer, object, change in
                    log.record("h", observer, object, change)
                    guard log.count == 1 else { return }
                    DispatchQueue(label: "held-change.setter").async {
                        object.age = 41
                        countWhenSetReturned.value = log.count
                        setterReturned.signal()
                    }
                    XCTAssertEqual(setterReturned.wait(timeout: .now() + 10), .success, "the set waited")
                }
                XCTAssertEqual(result, .registered)
                XCTAssertEqual(log.count, 2, "delivered before observe returned")
                person.age = 42
            }
        }
        XCTAssertEqual(countWhenSetReturned.value, 1, "the set returned without its change being delivered")
        XCTAssertEqual(
            log.all.map(\.new), [0, 41, 42], "initial, the held change, then a later change")
        XCTAssertTrue(log.threads[0] === log.threads[1], "the held change came on the observing thread")
        XCTAssertEqual(sink.records, [])
    }

    /// With `.prior`, a change held back keeps its prior notification before it, and several held changes keep the
    /// order they were made in.
    func testHeldChangesKeepTheirOrderAndTheirPriorNotifications() {
        let observer = GuardTestObserver()
        let (sink, controller) = makeController(for: observer)
        let person = Person()
        let log = HandlerLog()
        let heardWhenInitialReturned = LockedBox(-1)
        withDeadlockWatchdog("held prior notifications") {
            assertNoMisuse {
                let result = controller.observe(person, keyPath: "age", options: [.initial, .new, .old, .prior]) {
                    observer, object, change in
                    log.record("h", observer, object, change)
                    guard log.count == 1 else { return }
                    _ = onOtherThread {
                        object.age = 1
                        object.age = 2
                    }
                    heardWhenInitialReturned.value = log.count
                }
                XCTAssertEqual(result, .registered)
            }
        }
        XCTAssertEqual(heardWhenInitialReturned.value, 1, "nothing was delivered while the initial handler ran")
        XCTAssertEqual(
            log.all,
            [
                expectedCall("h", observer: observer, object: person, keyPath: "age", new: 0),
                expectedCall("h", observer: observer, object: person, keyPath: "age", old: 0, prior: true),
                expectedCall("h", observer: observer, object: person, keyPath: "age", old: 0, new: 1),
                expectedCall("h", observer: observer, object: person, keyPath: "age", old: 1, prior: true),
                expectedCall("h", observer: observer, object: person, keyPath: "age", old: 1, new: 2),
            ])
        XCTAssertEqual(sink.records, [])
    }

    /// Unobserving inside the initial handler drops what was held for the registration: a change made by another
    /// thread meanwhile, and one the handler made itself. Nothing reaches the handler after the initial notification.
    func testUnobserveInsideTheInitialHandlerDropsTheHeldChanges() {
        for unobserveFirst in [false, true] {
            let (observer, sink, controller) = makeOwnedController()
            let person = Person()
            let log = HandlerLog()
            let baseline = liveObservances
            withDeadlockWatchdog("unobserve inside the initial handler with held changes") {
                assertNoMisuse {
                    let result = controller.observe(person, keyPath: "age", options: [.initial, .new]) {
                        observer, object, change in
                        log.record("h", observer, object, change)
                        guard log.count == 1 else { return }
                        _ = onOtherThread { object.age = 1 }
                        if unobserveFirst {
                            XCTAssertEqual(observer.controller?.unobserve(object, keyPath: "age"), .removed)
                            object.age = 2
                        } else {
                            object.age = 2
                            XCTAssertEqual(observer.controller?.unobserve(object, keyPath: "age"), .removed)
                        }
                    }
                    XCTAssertEqual(result, .registered)
                    person.age = 3
                }
            }
            XCTAssertEqual(
                log.all, [expectedCall("h", observer: observer, object: person, keyPath: "age", new: 0)],
                "unobserve first: \(unobserveFirst)")
            XCTAssertEqual(controller.registrationCount, 0)
            XCTAssertEqual(liveObservances, baseline)
            XCTAssertEqual(sink.records, [])
            observer.controller = nil
        }
    }

    /// Dropping the last stored reference to the controller inside the initial handler, with changes held: the
    /// `observe` call itself keeps the controller until it returns, so the held changes are delivered first; then the
    /// controller goes and takes the registration with it. No deadlock, no crash, nothing afterwards.
    func testDroppingTheControllerInsideTheInitialHandlerWithChangesHeld() {
        let observer = GuardTestObserver()
        let sink = CountingSink()
        let person = Person()
        let log = HandlerLog()
        let baseline = liveObservances
        weak var weakController: ObservationController<GuardTestObserver>?
        let heardWhenInitialReturned = LockedBox(-1)
        withDeadlockWatchdog("controller dropped inside the initial handler with held changes") {
            assertNoMisuse {
                do {
                    let controller = ObservationController(observer: observer, diagnosticSink: sink)
                    weakController = controller
                    observer.controller = controller
                }
                let result = observer.controller?.observe(person, keyPath: "age", options: [.initial, .new]) {
                    observer, object, change in
                    log.record("h", observer, object, change)
                    guard log.count == 1 else { return }
                    object.age = 5
                    _ = onOtherThread { object.age = 6 }
                    observer.controller = nil  // the only stored reference
                    heardWhenInitialReturned.value = log.count
                }
                XCTAssertEqual(result, .registered)
                XCTAssertNil(weakController, "gone once observe returned")
                person.age = 7
            }
        }
        XCTAssertEqual(log.all.map(\.new), [0, 5, 6])
        XCTAssertEqual(heardWhenInitialReturned.value, 1, "both changes waited for the initial handler")
        XCTAssertEqual(liveObservances, baseline)
        XCTAssertEqual(sink.records, [])
    }

    /// A change made while the registration is being added (the window between the backend's add and the initial
    /// notification, held open here) waits for the initial notification, which the observing thread still delivers
    /// first; the handler ends on the current value.
    func testAChangeMadeDuringTheAddComesAfterTheInitialNotification() {
        let observer = GuardTestObserver()
        let (sink, controller) = makeController(for: observer)
        let person = Person()
        let log = HandlerLog()
        let pause = SchedulePause(at: .guardAfterRegister)
        defer { pause.uninstall() }
        withDeadlockWatchdog("a change during the add") {
            assertNoMisuse {
                let observing = pause.runOnPausedThread(label: "held-change.paused-observer") {
                    _ = controller.observe(person, keyPath: "age", options: [.initial, .new], handler: log.recording("h"))
                }
                person.age = 3  // reaches the registration, which holds it
                XCTAssertEqual(log.count, 0, "nothing before the initial notification")
                pause.resume()
                observing.wait()
            }
        }
        XCTAssertEqual(log.all.map(\.new), [3, 3], "the initial value read after the set, then the held change")
        XCTAssertTrue(log.threads[0] === log.threads[1], "both on the observing thread")
        XCTAssertEqual(sink.records, [])
    }

    /// The initial handler observes another key path of the same object with `.initial` and sets both properties:
    /// each registration hears its own initial notification first, then its own change.
    func testObservingAgainInsideTheInitialHandlerHoldsEachRegistrationsChanges() {
        let (observer, sink, controller) = makeOwnedController()
        defer { observer.controller = nil }
        let person = Person()
        let log = HandlerLog()
        // For each registration, whether its own initial handler was still running when a notification came.
        let inInitial = LockedBox<[String: Bool]>([:])
        let insideOwnInitial = LockedBox<[String]>([])
        let handler: @Sendable (String, GuardTestObserver, Person, KeyValueChange) -> Void = {
            tag, observer, object, change in
            if inInitial.value[tag] == true {
                insideOwnInitial.mutate { $0.append("\(tag)=\(GuardValue.of(change.newValue))") }
            }
            log.record(tag, observer, object, change)
        }
        assertNoMisuse {
            _ = controller.observe(person, keyPath: "age", options: [.initial, .new]) { observer, object, change in
                handler("age", observer, object, change)
                guard log.count == 1 else { return }
                inInitial.mutate { $0["age"] = true }
                _ = observer.controller?.observe(object, keyPath: "name", options: [.initial, .new]) {
                    observer, object, change in
                    handler("name", observer, object, change)
                    if change.newValue(as: String.self) == "" {
                        inInitial.mutate { $0["name"] = true }
                        object.name = "Ada"
                        object.age = 36
                        inInitial.mutate { $0["name"] = false }
                    }
                }
                inInitial.mutate { $0["age"] = false }
            }
        }
        XCTAssertEqual(
            log.all.map { "\($0.tag)=\($0.new)" }, ["age=0", "name=", "name=Ada", "age=36"],
            "each initial first; the inner registration's change right after its initial, the outer one's after the "
                + "outer initial handler returned")
        XCTAssertEqual(insideOwnInitial.value, [], "no change ran inside its own registration's initial handler")
        XCTAssertEqual(sink.records, [])
    }

    /// The token API inherits it: a set inside the initial handler comes after the initial notification, before
    /// `guardedObserve` returns.
    func testATokensInitialHandlerHearsItsOwnSetAfterwards() {
        let person = Person()
        person.age = 30
        let seen = LockedBox<[Int]>([])
        let seenWhenInitialReturned = LockedBox(-1)
        let token = person.guardedObserve(\.age, options: [.initial, .new]) { person, change in
            seen.mutate { $0.append(change.newValue ?? -1) }
            if seen.value.count == 1 {
                person.age = 31
                seenWhenInitialReturned.value = seen.value.count
            }
        }
        XCTAssertEqual(seen.value, [30, 31], "delivered before guardedObserve returned")
        XCTAssertEqual(seenWhenInitialReturned.value, 1, "not nested inside the initial handler")
        token.invalidate()
    }
}
