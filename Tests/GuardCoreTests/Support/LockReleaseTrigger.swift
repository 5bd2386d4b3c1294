import Foundation
@testable import GuardCore

/// Runs an action once, on one thread, right after that thread releases its `k`-th GuardCore lock (counting only
/// releases that leave it holding none): a change placed exactly between two locked steps of one call, as another
/// thread could make it. Installed as the process's schedule hook while a test uses it.
final class LockReleaseTrigger: ScheduleHook, @unchecked Sendable {
    private let lock = NSLock()
    private let thread = pthread_self()
    private let releaseNumber: Int
    private var action: (() -> Void)?
    private var held = 0
    private var releases = 0
    private var running = false

    private init(releaseNumber: Int, action: @escaping () -> Void) {
        self.releaseNumber = releaseNumber
        self.action = action
    }

    /// Runs `body` with `action` armed for the calling thread's `releaseNumber`-th lock release. Returns whether the
    /// action ran (`false`: `body` released fewer locks) and how many releases `body` made.
    static func run(
        afterRelease releaseNumber: Int, do action: @escaping () -> Void, during body: () -> Void
    ) -> (fired: Bool, releases: Int) {
        let trigger = LockReleaseTrigger(releaseNumber: releaseNumber, action: action)
        SchedulePoints.install(trigger)
        body()
        SchedulePoints.uninstall()
        return trigger.lock.withLock { (trigger.action == nil, trigger.releases) }
    }

    /// Places an action after each lock release of a body in turn: calls `attempt` with the release numbers 1, 2, …
    /// (each attempt sets up afresh and calls ``run(afterRelease:do:during:)`` with its number) until an attempt's
    /// body made no more releases than its number. Returns how many attempts ran their action.
    static func forEachRelease(_ attempt: (_ release: Int) -> (fired: Bool, releases: Int)) -> Int {
        var fired = 0
        var release = 1
        while true {
            let outcome = attempt(release)
            if outcome.fired { fired += 1 }
            guard release < outcome.releases else { return fired }
            release += 1
        }
    }

    func reach(_ point: NamedSchedulePoint, object: ObjectIdentifier) {}
    func access(_ object: ObjectIdentifier, _ word: SharedWord, _ kind: SharedAccess) {}
    func created(_ object: ObjectIdentifier) {}

    func willAcquire(_ lock: ObjectIdentifier, waiters: LockWaiters, readOnly: Bool) {
        guard pthread_equal(pthread_self(), thread) != 0 else { return }
        self.lock.withLock { held += 1 }
    }

    func didRelease(_ lock: ObjectIdentifier, wokeWaiter: Bool?) {
        guard pthread_equal(pthread_self(), thread) != 0 else { return }
        let due = self.lock.withLock { () -> (() -> Void)? in
            held -= 1
            guard held == 0, !running else { return nil }
            releases += 1
            guard releases == releaseNumber, let action else { return nil }
            self.action = nil
            running = true
            return action
        }
        guard let due else { return }
        due()
        self.lock.withLock { running = false }
    }
}
