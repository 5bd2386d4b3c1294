import GuardCore

/// **Planted bug `bug-handler-under-lock`: the handler runs while the controller's lock is held.** The delivery
/// looks the registration up and calls the handler inside the same critical section, so a handler that calls back
/// into its controller (unobserve inside the callback, unobserve-all, observe) takes the lock its own thread holds:
/// a self-deadlock. The lock is a plain mutex the controlled runner sees (``ScheduledLock``), so a controlled run sees
/// the handler start while the lock is held (`called-under-lock`, even when no handler calls back in) and reports a
/// deadlock at the acquire; a chaos round hangs (a `deadlock` verdict in a child process).
///
/// Mirrors a hand-rolled singleton `KVOController` that "calls blocks while holding" its semaphore, and GNUstep's KVO
/// (observers called under a lock); it breaks the guard's "handlers run outside every internal lock".
/// The oracle sees `called-under-lock` (controlled runs) or `deadlock`.
final class HandlerCalledUnderLockController: BaselineController, @unchecked Sendable {
    override class func deliver(
        _ change: KeyValueChange, of object: StressObject, through bridge: PlantedBridge, in table: PlantedTable
    ) {
        table.lock.withLock {
            // The planted bug: the handler is called before the lock is released.
            if table.live.contains(where: { $0.bridge === bridge && $0.delivers }) { bridge.forward(change, of: object) }
        }
    }
}
