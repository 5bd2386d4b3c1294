import GuardCore

/// A place that holds one instance at a time, shared by all workers: reading it gives a strong reference to the
/// current instance, replacing it hands the previous one back for the caller to drop.
final class Slot<Instance: AnyObject>: @unchecked Sendable {
    private let lock = Lock()
    private var current: Instance?

    init(_ instance: Instance) {
        current = instance
    }

    /// The identity its lock announces to the schedule hook.
    var lockIdentity: ObjectIdentifier { ObjectIdentifier(lock) }

    /// The instance in the slot, with a strong reference the caller takes. For an explorer, a read of the slot (reads
    /// of one slot commute) and a read of the instance's life (taking a reference); the caller tells when it drops it
    /// (``SharedAccess/hold`` for one it keeps to the end of its operation).
    var instance: Instance? {
        let instance = ControlledHook.withLockMode(.shared) { lock.withLock { current } }
        if let instance { SchedulePoints.access(instance, .lifetime, .read) }
        return instance
    }

    /// Puts `instance` in the slot and returns the previous one, whose reference the caller takes over. For an
    /// explorer, a write of the slot and of the previous instance's life (the slot's reference to it goes); the
    /// caller tells when it drops the previous one.
    func replace(with instance: Instance?) -> Instance? {
        let previous = lock.withLock {
            let previous = current
            current = instance
            return previous
        }
        if let previous { SchedulePoints.access(previous, .lifetime, .write) }
        return previous
    }
}

/// One object slot, and the lock that serializes mutations of the objects in it (concurrent sets of one Swift
/// property are a data race in any program; the harness models correct callers).
final class ObjectSlot: @unchecked Sendable {
    let index: Int
    /// Held around every mutation and every observe that reads the value for `.initial` + `.new`. Recursive, so
    /// a handler may mutate the object whose change it is handling; announces its outermost acquire and release to
    /// the schedule hook, so a cooperative scheduler knows who holds it.
    let mutationLock = ReentrantLock()
    /// Held around every set of `gauge` of the objects in the slot, instead of ``mutationLock`` (a per-key lock): sets
    /// of one object's `gauge` never overlap one another, so each records exact old and new values, but they overlap
    /// links (which hold the mutation locks of both middle objects) and every other change. Only a worker's own mutate
    /// of `gauge` takes it, holding no other lock, so it comes first in every lock order. Made only for scenarios whose
    /// mix draws sets of `gauge` (`nil` otherwise, and a set of `gauge` then takes ``mutationLock``), so every other
    /// scenario's world is laid out in memory exactly as before `gauge` existed.
    let gaugeLock: ReentrantLock?
    let slot: Slot<StressObject>

    init(index: Int, object: StressObject, locksGaugeApart: Bool) {
        self.index = index
        self.slot = Slot(object)
        self.gaugeLock = locksGaugeApart ? ReentrantLock() : nil
    }

    /// The object in the slot, kept by the caller to the end of its operation (as an explorer counts it).
    var object: StressObject? {
        let object = slot.instance
        if let object { SchedulePoints.access(object, .lifetime, .hold) }
        return object
    }

    func replace(with object: StressObject?) -> StressObject? { slot.replace(with: object) }
}

/// One controller slot: the observer currently in it (which owns its controller), and how its controllers hold
/// objects.
final class ControllerSlot: @unchecked Sendable {
    let index: Int
    let holdsWeakly: Bool
    let slot: Slot<StressObserver>

    init(index: Int, holdsWeakly: Bool, observer: StressObserver) {
        self.index = index
        self.holdsWeakly = holdsWeakly
        self.slot = Slot(observer)
    }

    /// The observer in the slot, kept by the caller to the end of its operation (as an explorer counts it).
    var observer: StressObserver? {
        let observer = slot.instance
        if let observer { SchedulePoints.access(observer, .lifetime, .hold) }
        return observer
    }

    /// The controller of the observer in the slot, kept by the caller to the end of its operation; the observer is
    /// taken for the moment it takes to read it, and dropped at once (as an explorer counts it).
    var controller: ControllerHandle? {
        var observer = slot.instance
        let handle = observer?.controller
        let identity = observer.map(ObjectIdentifier.init)
        observer = nil
        if let identity { SchedulePoints.access(identity, .lifetime, .drop) }
        return handle
    }

    func replace(with observer: StressObserver?) -> StressObserver? { slot.replace(with: observer) }
}
