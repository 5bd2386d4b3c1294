/// The registrations of one baseline controller (or, for a singleton, of all of them) under one lock: a lookup by
/// key, and every live registration in one array, newest first (what notifications look through).
final class PlantedTable: @unchecked Sendable {
    let lock = PlantedLock()
    /// Guarded by ``lock``.
    var byKey: [PlantedRegistrationKey: PlantedRegistration] = [:]
    /// Every registration not yet taken out, newest first. Guarded by ``lock``.
    var live: [PlantedRegistration] = []

    /// Files `registration` (the caller holds the lock).
    func insert(_ registration: PlantedRegistration) {
        byKey[registration.key] = registration
        live.insert(registration, at: 0)
    }

    /// Takes `registration` out (the caller holds the lock).
    func remove(_ registration: PlantedRegistration) {
        if byKey[registration.key] === registration { byKey[registration.key] = nil }
        if let index = live.firstIndex(where: { $0 === registration }) { live.remove(at: index) }
    }
}
