/// The words of a controlled run's report when a worker blocks outside the scheduler's control.
extension CooperativeScheduler {
    /// Why `worker` (described), last seen at `lastPoint`, reached no schedule point for `waited` seconds, given the
    /// workers the scheduler paused inside an operation meanwhile.
    static func blockedOutsideMessage(_ worker: String, lastPoint last: String, waited: String, paused: [String]) -> String {
        var message = "\(worker) reached no schedule point for \(waited) s: it is blocked outside the "
            + "scheduler's control, on something that does not announce itself to the scheduler (its last schedule "
            + "point was \(last)). "
        if paused.isEmpty {
            message += "No other worker is paused inside an operation, so no lock of the system's is held by another "
                + "worker: it waits for something that will not come (a semaphore never signalled, a lock never "
                + "released, a real wait)"
        } else {
            message += "This need not be a deadlock of the system under test: the scheduler paused "
                + paused.joined(separator: "; ")
                + ", and if the system serializes with a lock of its own that the scheduler cannot see (NSLock, "
                + "pthread_mutex_t, os_unfair_lock, DispatchQueue.sync, a semaphore), the paused holder is never run "
                + "again to release it"
        }
        return message + ". " + blockedOutsideAdvice
    }

    /// What a user whose worker blocked outside the scheduler's control should do.
    static let blockedOutsideAdvice =
        "A system under test of your own must take its locks as FaultInjector's ScheduledLock, which announces every "
        + "acquire and release so the scheduler runs the holder until it releases; one that waits for other threads "
        + "in other ways belongs on the chaos runner"
}
