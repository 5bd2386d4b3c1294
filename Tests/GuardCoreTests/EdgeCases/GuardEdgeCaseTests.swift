// The guard with an object that observes itself, sinks that re-enter or block, `.initial` with `.prior`, and a token released inside its own handler.
import Foundation
@testable import GuardCore
import XCTest

final class EdgeSelfObserver: KVOObject, @unchecked Sendable {
    @Observed var value = 0
    var controller: ObservationController<EdgeSelfObserver>?
    var onDeinit: (() -> Void)?
    deinit { onDeinit?() }
}

final class EdgeFlag: @unchecked Sendable {
    private let lock = NSLock()
    private var flag = false
    func set() { lock.withLock { flag = true } }
    var isSet: Bool { lock.withLock { flag } }
}

/// Runs `body` on its own thread; returns false if it did not finish within `seconds` (a hang / deadlock).
func finishesInTime(within seconds: Double = 10, _ body: @escaping @Sendable () -> Void) -> Bool {
    let done = DispatchSemaphore(value: 0)
    let thread = Thread {
        body()
        done.signal()
    }
    thread.stackSize = 8 << 20
    thread.start()
    return done.wait(timeout: .now() + seconds) == .success
}

final class GuardEdgeCaseTests: XCTestCase {
    /// An object that observes itself through a controller it owns, holding observed objects weakly (as the
    /// controller's documentation advises): it is freed when released, without misuse.
    func testSelfObservationWeaklyHeldIsFreedWithoutMisuse() {
        let gone = EdgeFlag()
        let misuses = recordingMisuse {
            let object = EdgeSelfObserver()
            object.onDeinit = { gone.set() }
            let controller = ObservationController(observer: object, retainsObservedObjects: false)
            object.controller = controller
            controller.observe(object, keyPath: "value") { _, _, _ in }
            object.value = 3
        }
        XCTAssertTrue(gone.isSet)
        XCTAssertEqual(misuses, [])
    }

    /// A controller sink that re-enters the controller from `record` (observe, unobserve, unobserveAll, replaces
    /// itself, replaces the process-wide sink): no deadlock, no trap.
    func testSinkReenteringTheController() {
        let observer = EdgeObserverBox()
        let person = Person()
        let finished = finishesInTime {
            let controller = ObservationController(observer: observer)
            let calls = TestBox(0)
            let weakController = UncheckedBoxWeak(controller)
            controller.diagnosticSink = ClosureSink { event in
                calls.set(calls.get() + 1)
                guard calls.get() < 20, let controller = weakController.value else { return }
                controller.observe(person, keyPath: "age") { _, _, _ in }
                controller.observe(person, keyPath: "age") { _, _, _ in }  // duplicate: re-enters the sink
                controller.unobserve(person, keyPath: "name")  // not registered: re-enters
                controller.unobserveAll()
                _ = controller.registrationCount
                controller.diagnosticSink = nil
                _ = GuardDiagnostics.withSink(CountingSink()) {
                    controller.unobserve(person, keyPath: "age")
                }
            }
            controller.unobserve(person, keyPath: "age")
            controller.unobserve(person, keyPath: "age")
        }
        XCTAssertTrue(finished, "a re-entrant sink must not deadlock the controller")
    }

    /// A sink that blocks (slow logger) on one thread must not stall other threads' use of the controller.
    func testBlockingSinkDoesNotStallOtherThreads() {
        let observer = EdgeObserverBox()
        let person = Person()
        let controller = ObservationController(observer: observer)
        let release = DispatchSemaphore(value: 0)
        let entered = DispatchSemaphore(value: 0)
        controller.diagnosticSink = ClosureSink { _ in
            entered.signal()
            release.wait()
        }
        Thread { controller.unobserve(person, keyPath: "age") }.start()
        entered.wait()
        let seen = TestBox(0)
        let finished = finishesInTime(within: 5) {
            controller.observe(person, keyPath: "age") { _, _, _ in seen.set(seen.get() + 1) }
            person.age = 4
            controller.unobserve(person, keyPath: "age")
        }
        release.signal()
        XCTAssertTrue(finished, "a blocked sink on another thread must not block observe/notify/unobserve")
        XCTAssertEqual(seen.get(), 1)
    }

    /// `.initial` + `.prior` + `.old` + `.new`: one initial (not prior, new only), then prior/change per set.
    func testInitialPlusPrior() {
        let observer = EdgeObserverBox()
        let person = Person()
        person.age = 1
        let notes = TestBox<[String]>([])
        let controller = ObservationController(observer: observer)
        controller.observe(person, keyPath: "age", options: [.initial, .prior, .old, .new]) { _, _, change in
            let old = change.oldValue(as: Int.self).map(String.init) ?? "-"
            let new = change.newValue(as: Int.self).map(String.init) ?? "-"
            notes.set(notes.get() + ["\(change.isPrior ? "P" : "C") \(old) \(new)"])
        }
        person.age = 2
        XCTAssertEqual(notes.get(), ["C - 1", "P 1 -", "C 1 2"])
    }

    /// A token's handler that captures the token (the usual "store the token" mistake, but through a box the
    /// handler clears): dropping the box inside the handler ends the observation; nothing more is delivered.
    func testTokenReleasedInsideItsOwnHandlerThroughABox() {
        final class Holder: @unchecked Sendable { var token: ObservationToken? }
        let person = Person()
        let holder = Holder()
        let count = TestBox(0)
        holder.token = person.guardedObserve(keyPath: "age") { _, _ in
            count.set(count.get() + 1)
            holder.token = nil
        }
        person.age = 1
        person.age = 2
        XCTAssertEqual(count.get(), 1)
        XCTAssertNil(holder.token)
    }
}

final class UncheckedBoxWeak<T: AnyObject>: @unchecked Sendable {
    weak var value: T?
    init(_ value: T) { self.value = value }
}
