/// **Planted bug `bug-early-return-keeps-lock`: an early return never releases the lock.** Observe takes the lock by
/// hand, and its duplicate path returns without unlocking; the next call on any thread waits for ever. The lock is a
/// ``ScheduledLock`` the controlled runner sees, so it names the deadlock as soon as every worker waits (or the owner
/// takes it again); a chaos round hangs (a `deadlock` verdict in a child process).
///
/// Mirrors a hand-rolled singleton `KVOController` seen in the wild that waits on its semaphore and
/// returns early ("already observed") without signalling it. The oracle sees `deadlock`.
final class EarlyReturnKeepsLockController: BaselineController, @unchecked Sendable {
    override func reserve(_ registration: PlantedRegistration) -> Bool {
        table.lock.lock()
        // The planted bug: this return leaves the lock held.
        if table.byKey[registration.key] != nil { return false }
        table.insert(registration)
        table.lock.unlock()
        return true
    }
}
