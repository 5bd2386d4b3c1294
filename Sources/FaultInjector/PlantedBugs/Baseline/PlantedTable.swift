import GuardCore

/// The registrations of one baseline controller (or, for a singleton, of all of them) under one lock: a lookup by
/// key, and every live registration in one array, newest first (what notifications look through).
final class PlantedTable: @unchecked Sendable {
    /// A plain (not error-checking) mutex the controlled runner sees, unlike GuardCore's `Lock`, which stops a debug
    /// build on a relock: so a planted bug that calls a handler under it, or returns without releasing it, is a real
    /// deadlock. The controlled runner names it at once (it sees every acquire); a chaos round hangs until its
    /// watchdog, which in a child process is the verdict `deadlock`.
    let lock = ScheduledLock()
    /// Guarded by ``lock``.
    var byKey: [PlantedRegistrationKey: PlantedRegistration] = [:]
    /// Every registration not yet taken out, newest first. Guarded by ``lock``.
    var live: [PlantedRegistration] = []

    init() {
        // The table is the registrations' state, as a guard controller's is.
        SchedulePoints.guards(lock, .registrationState)
    }

    /// Files `registration` (the caller holds the lock).
    func insert(_ registration: PlantedRegistration) {
        // A write for an explorer, so a planted bug's unlocked read of the table (``SharedWord/unlockedTable``)
        // counts as racing it.
        SchedulePoints.access(self, .unlockedTable, .write)
        byKey[registration.key] = registration
        live.insert(registration, at: 0)
    }

    /// Keeps `change` of `object` for the observing thread if the registration of `bridge` holds changes (its
    /// `.initial` notification is pending) and returns `true`; returns `false` otherwise (the caller delivers it).
    /// Takes the lock only while it holds changes.
    func holdBack(_ change: KeyValueChange, of object: StressObject, for bridge: PlantedBridge) -> Bool {
        guard bridge.holdsChanges else { return false }
        let origin = ChangeOrigin.current
        return lock.withLock {
            guard bridge.holdsChanges, let registration = live.first(where: { $0.bridge === bridge }) else {
                return false
            }
            if registration.delivers { registration.held.append((change, object, origin)) }
            return true
        }
    }

    /// Takes `registration` out (the caller holds the lock).
    func remove(_ registration: PlantedRegistration) {
        SchedulePoints.access(self, .unlockedTable, .write)
        if byKey[registration.key] === registration { byKey[registration.key] = nil }
        if let index = live.firstIndex(where: { $0 === registration }) { live.remove(at: index) }
    }
}
