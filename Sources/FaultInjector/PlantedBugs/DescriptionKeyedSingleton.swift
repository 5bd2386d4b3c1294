/// **Planted bug `bug-description-singleton`: one controller for everybody, its cache keyed by the object's
/// `description`.** Every controller of the system shares one table (the singleton) under one semaphore (here a
/// ``ScheduledLock`` the controlled runner sees), keyed by `String(describing: object)` and the key path, without the
/// observer. Objects whose descriptions agree (every stress object's is its type name, as in a model class that
/// prints its fields) and different observers of one object collide: a first observe answers `duplicate` and is
/// never notified, and an unobserve removes another observer's registration.
///
/// Mirrors a hand-rolled singleton `KVOController` seen in the wild, which keys registrations by `description`. Its
/// other two faults, calling blocks while holding the semaphore and returning early without releasing it, are the
/// planted bugs `bug-handler-under-lock` and `bug-early-return-keeps-lock`; this one releases its semaphore
/// correctly. The oracle sees `non-linearizable` (and lost or misrouted deliveries).
final class DescriptionKeyedSingletonController: BaselineController, @unchecked Sendable {
    override func name(of object: StressObject) -> String {
        // The planted bug: a description names a kind of object, not one object.
        String(describing: object)
    }

    override func key(for object: StressObject, keyPath: String) -> PlantedRegistrationKey {
        PlantedRegistrationKey(owner: nil, object: name(of: object), keyPath: keyPath)
    }
}
