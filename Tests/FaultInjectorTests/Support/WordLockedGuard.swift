#if os(Linux)
import FaultInjector
import FaultInjectorTestSupport
import Foundation
import GuardCore
import GuardCoreAtomics

/// The unmodified guard behind a lock of GuardCore's one-word kind, planted at the guard's edge for the tests: each
/// call's first step takes the lock around a query of the guard (whose own lock is a schedule point, so another
/// worker can come to wait for this one). `wakes: false` plants a release that forgets to wake a thread asleep on the
/// lock, the lost wake-up that a release of GuardCore's own lock could make.
struct WordLockedGuard: SystemUnderTest {
    let wakes: Bool
    var name: String { wakes ? "word-locked-guard" : "planted-lost-wake-up" }
    let promisesGuardSemantics = true
    let dropsWeakRegistrationsInObjectDeinit = true
    let answersRemovalsInObjectDeinit = true
    let refusesObservationInObjectDeinit = true
    let releasesInRegistrationOrder = true

    func makeController(
        for observer: StressObserver, retainsObjects: Bool, diagnostics: any DiagnosticSink
    ) -> any StressController {
        let inner = ForwardingController.guardController(for: observer, retainsObjects: retainsObjects, diagnostics: diagnostics)
        return WordLockedController(inner: inner, lock: lock)
    }

    /// One lock for every controller of the target, so workers with different controllers wait for each other too.
    private let lock: PlantedWordLock

    init(wakes: Bool) {
        self.wakes = wakes
        lock = PlantedWordLock(wakes: wakes)
    }
}

/// GuardCore's one-word lock, taken and released as `Lock` takes it in Linux release builds, with the same
/// announcements to the schedule hook. With `wakes: false` its release stores an unlocked word without waking a
/// thread asleep on it (and says so): a planted lost wake-up. Only controlled runs use that one: there one worker runs
/// at a time, so the plain store races with nothing.
final class PlantedWordLock: @unchecked Sendable {
    private let word = UnsafeMutablePointer<gca_lock>.allocate(capacity: 1)
    private let wakes: Bool

    init(wakes: Bool) {
        word.initialize(to: gca_lock())
        self.wakes = wakes
        SchedulePoints.created(self)
    }

    deinit { word.deallocate() }

    func withLock<Result>(_ body: () -> Result) -> Result {
        SchedulePoints.willAcquire(self, waiters: LockWaiters(wordLock: word))
        gca_lock_acquire(word)
        defer {
            if wakes {
                SchedulePoints.didRelease(self, wokeWaiter: gca_lock_release(word))
            } else {
                UnsafeMutableRawPointer(word).storeBytes(of: 0, as: UInt32.self)
                SchedulePoints.didRelease(self, wokeWaiter: false)
            }
        }
        return body()
    }
}

/// Takes the lock around a query of the guard at the start of every call that changes registrations, then hands the
/// call to the guard.
private final class WordLockedController: AnsweringController, @unchecked Sendable {
    private let lock: PlantedWordLock

    init(inner: any StressController, lock: PlantedWordLock) {
        self.lock = lock
        super.init(inner: inner)
    }

    private func enter() {
        _ = lock.withLock { inner.registrationCount() }
    }

    override func observe(
        _ object: StressObject, keyPath: String, options: KeyValueObservingOptions, sink: DeliverySink, call: StressCall
    ) -> ObserveOutcome {
        enter()
        return inner.observe(object, keyPath: keyPath, options: options, sink: sink, call: call)
    }

    override func unobserve(_ object: StressObject, keyPath: String, call: StressCall) -> UnobserveOutcome {
        enter()
        return inner.unobserve(object, keyPath: keyPath, call: call)
    }

    override func unobserve(_ object: StressObject, call: StressCall) -> UnobserveOutcome {
        enter()
        return inner.unobserve(object, call: call)
    }

    override func unobserveAll(call: StressCall) -> Int? {
        enter()
        return inner.unobserveAll(call: call)
    }
}
#endif
