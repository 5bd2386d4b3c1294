/// Attached to an observed object as an associated object, it lives exactly as long as the object and holds the
/// trampolines registered on it. Its deinit is how ``TrampolineBackend`` learns, without swizzling anything, that
/// the object is gone: it ends every registration still on it and tells the receivers of weakly held objects.
///
/// It never references the object, so nothing it does can message a deallocated object (FBKVOController issue
/// #140). Only the association may hold it strongly: anything else retaining it would delay its deinit past the
/// object's.
package final class ObservedObjectSentinel: @unchecked Sendable {
    private struct Entry {
        let registration: TrampolineRegistration
        let trampoline: AnyObject
    }

    private let lock = Lock()
    private var entries: [ObjectIdentifier: Entry] = [:]

    /// Serializes the creation of sentinels, so two threads observing a new object at once attach one sentinel.
    private static let creationLock = Lock()

    package init() {}

    deinit {
        // The object is being deallocated and the platform has dropped its observations; no other thread can reach
        // this sentinel any more (weak references to it read nil from now on).
        for entry in entries.values {
            entry.registration.objectDidDeinit()
        }
    }

    /// The sentinel of `object`, attached now if it has none.
    static func attached(to object: AnyObject, on platform: some TrampolinePlatform) -> ObservedObjectSentinel {
        if let existing = platform.sentinel(of: object) { return existing }
        return creationLock.withLock {
            if let existing = platform.sentinel(of: object) { return existing }
            let sentinel = ObservedObjectSentinel()
            platform.attach(sentinel, to: object)
            return sentinel
        }
    }

    /// Holds `trampoline` for `registration` until ``release(_:)``.
    func hold(_ trampoline: AnyObject, for registration: TrampolineRegistration) {
        registration.attach(trampoline, heldBy: self)
        lock.withLock { entries[ObjectIdentifier(registration)] = Entry(registration: registration, trampoline: trampoline) }
    }

    /// Lets go of `registration`'s trampoline (after the platform removed it). The trampoline is released after the
    /// lock is.
    func release(_ registration: TrampolineRegistration) {
        let entry = lock.withLock { entries.removeValue(forKey: ObjectIdentifier(registration)) }
        withExtendedLifetime(entry) {}
    }

    /// How many registrations are on the object.
    package var registrationCount: Int {
        lock.withLock { entries.count }
    }
}
