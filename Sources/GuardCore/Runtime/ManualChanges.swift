import Foundation
import GuardCoreAtomics

/// The changes each thread has begun with `willChangeValue` and not yet ended with `didChangeValue`.
///
/// Like Foundation, pending changes are per thread: a `didChange` pairs with the most recent `willChange` of the
/// same object and key on the same thread, so nesting (also of different keys) works. A pending change holds its
/// object weakly: when the object deinitializes with a change still pending, the entry is dropped, so it neither
/// leaks nor pairs with a `didChange` of a new object that reuses the address.
///
/// An object may announce changes in its own deinit, as in Foundation. A weak reference to an object that is running
/// its deinit already reads `nil`, so a change begun there is recognized by the object's identity instead, and
/// dropped when ``KVOObject``'s own deinit ends (which runs after the subclass's deinit body) if it is still pending.
enum ManualChanges {
    private struct Pending {
        weak var object: KVOObject?
        let objectID: ObjectIdentifier
        /// Whether the change began while its object ran its deinit (`object` reads `nil` from the start).
        let beganDuringDeinit: Bool
        let key: String
        var plan: ChangePlan?
        /// Without a plan (nobody to notify when the change began): the table's insertion count before it began, so
        /// its end can re-wire dotted observances inserted meanwhile and notify the observances that join it.
        let epochWithoutPlan: UInt64
        /// What kind of change it is, and where (a to-many change), for the end of a change without a plan (a set
        /// mutation's is a setting then).
        let kind: KeyValueChange.Kind
        let indexes: IndexSet?

        /// Whether the entry's object is gone: its weak reference reads `nil`, and the change did not begin in its deinit.
        var isOfDeadObject: Bool { object == nil && !beganDuringDeinit }

        /// Whether the entry is about `object` (whose identity is `id`): the very object, or the object running its
        /// deinit that began the change there.
        func isAbout(_ object: KVOObject, id: ObjectIdentifier) -> Bool {
            if beganDuringDeinit { return objectID == id }
            return self.object === object
        }
    }

    private final class ThreadState {
        var pending: [Pending] = []
        /// Object and key pairs whose automatic notifications are suppressed on this thread (see ``silently``).
        var silenced: [(ObjectIdentifier, String)] = []

        /// Drops entries whose object is gone (not those begun in their object's deinit: see ``objectDidDeinit(_:)``).
        func forgetDeadObjects() {
            if pending.contains(where: \.isOfDeadObject) { pending.removeAll(where: \.isOfDeadObject) }
        }
    }

    private static let threadState = ThreadLocal { ThreadState() }
    /// How many changes begun during their object's deinit are pending on all threads; lets every other deinit skip
    /// ``objectDidDeinit(_:)``'s thread-local lookup.
    private static var openDeinitChanges: AtomicWord {
        AtomicWord(gca_open_deinit_changes_word())
    }
    /// How many silenced spans are open on all threads; lets ``isSilenced(object:key:)`` skip the thread-local
    /// lookup in the common case of none.
    private static var openSilences: AtomicWord {
        AtomicWord(gca_open_silences_word())
    }

    /// Begins a change of `key`: snapshots observers, reads old values, sends prior notifications.
    static func willChange(
        object: KVOObject, key: String, kind: KeyValueChange.Kind, indexes: IndexSet?, setMutation: SetMutation? = nil
    ) {
        let epoch = object.existingTable?.insertionCount ?? 0
        var plan = ChangePlan(
            object: object, key: key, hash: KeyHash.of(key), kind: kind, indexes: indexes, setMutation: setMutation)
        plan?.begin(on: object, readOwnValue: ownValueReader(of: object, key: key))
        let state = threadState.value
        state.forgetDeadObjects()
        // Without a plan nothing was read, so which objects a set mutation adds or removes is not known at its end: an
        // observance that joins it hears the set's new value as a setting.
        let unplannedKind = setMutation == nil ? kind : .setting
        let unplannedIndexes = setMutation == nil ? indexes : nil
        var pending = Pending(
            object: object, objectID: ObjectIdentifier(object), beganDuringDeinit: false, key: key, plan: plan,
            epochWithoutPlan: epoch, kind: unplannedKind, indexes: unplannedIndexes)
        if pending.object == nil {
            // Only an object running its deinit reads as gone while the caller holds it.
            pending = Pending(
                object: nil, objectID: pending.objectID, beganDuringDeinit: true, key: key, plan: plan,
                epochWithoutPlan: epoch, kind: unplannedKind, indexes: unplannedIndexes)
            openDeinitChanges.add(1, ordering: .relaxed)
        }
        state.pending.append(pending)
    }

    /// Ends the most recent pending change of `key` on this thread. Without one, reports
    /// ``KVOMisuse/Kind/unpairedDidChange``.
    static func didChange(object: KVOObject, key: String) {
        let state = threadState.value
        state.forgetDeadObjects()
        let id = ObjectIdentifier(object)
        guard let index = state.pending.lastIndex(where: { $0.isAbout(object, id: id) && $0.key.isSameKey(as: key) })
        else {
            RuntimeMonitor.handle(MisuseMessages.unpairedDidChange(object: object, key: key))
            return
        }
        var pending = state.pending.remove(at: index)
        if pending.beganDuringDeinit { openDeinitChanges.add(-1, ordering: .relaxed) }
        if pending.plan != nil {
            pending.plan?.end(on: object, readOwnValue: ownValueReader(of: object, key: key))
        } else {
            ChangePlan.endUnplanned(
                on: object, key: key, hash: KeyHash.of(key), kind: pending.kind, indexes: pending.indexes,
                insertedAfter: pending.epochWithoutPlan, readOwnValue: ownValueReader(of: object, key: key))
        }
    }

    /// Called at the end of every ``KVOObject``'s deinit: drops the changes that object began in its deinit and never
    /// ended, so they neither leak nor pair with a new object at its address.
    static func objectDidDeinit(_ id: ObjectIdentifier) {
        guard openDeinitChanges.load(ordering: .relaxed) != 0, let state = threadState.valueIfCreated else { return }
        let dropped = state.pending.filter { $0.beganDuringDeinit && $0.objectID == id }.count
        guard dropped > 0 else { return }
        state.pending.removeAll { $0.beganDuringDeinit && $0.objectID == id }
        openDeinitChanges.add(-dropped, ordering: .relaxed)
    }

    /// A change begun by a caller that pairs its begin and end itself (a dependent key's relay) instead of through the
    /// thread's pending list: if the caller never ends it, nothing is left behind for another `didChange` to pair with.
    ///
    /// It holds its object until it ends, as the caller of a setter does: the change it relays is made on another
    /// object (the one at the end of the dotted key path), so nothing else keeps this one alive meanwhile. Were the
    /// object to deinitialize between the prior notification and the change, the relay and this change would go with
    /// it, releasing the registrations the change holds wherever that deinit ran: inside some other release (a bulk
    /// removal's, whose registrations then go out of the order they were made), not when the change ends.
    struct DetachedChange {
        fileprivate var plan: ChangePlan?
        fileprivate let epoch: UInt64
        let key: String
        /// The object whose key path changes, held until the change ends.
        fileprivate let object: KVOObject
    }

    /// Begins a change of `key` that the caller ends with ``endDetached(_:object:)`` (on the same thread). Only a
    /// dependent key's relay begins one: the change is part of the change that set the relay off (see
    /// ``AnnouncementScope``).
    static func beginDetached(object: KVOObject, key: String) -> DetachedChange {
        let epoch = object.existingTable?.insertionCount ?? 0
        var plan = ChangePlan(
            object: object, key: key, hash: KeyHash.of(key), kind: .setting, indexes: nil, isRelayed: true)
        plan?.begin(on: object, readOwnValue: ownValueReader(of: object, key: key))
        return DetachedChange(plan: plan, epoch: epoch, key: key, object: object)
    }

    /// Ends a change begun with ``beginDetached(object:key:)``.
    static func endDetached(_ change: DetachedChange, object: KVOObject) {
        if var plan = change.plan {
            plan.end(on: object, readOwnValue: ownValueReader(of: object, key: change.key))
        } else {
            ChangePlan.endUnplanned(
                on: object, key: change.key, hash: KeyHash.of(change.key), kind: .setting, indexes: nil,
                insertedAfter: change.epoch, readOwnValue: ownValueReader(of: object, key: change.key))
        }
    }

    /// How many changes this thread has begun and not ended (for tests).
    static var pendingCountOnThisThread: Int {
        let state = threadState.value
        state.forgetDeadObjects()
        return state.pending.count
    }

    /// Runs `body` with automatic notifications for `key` of `object` suppressed on this thread; used by the
    /// to-many helpers, which announce the change themselves.
    static func silently<Result>(object: KVOObject, key: String, _ body: () throws -> Result) rethrows -> Result {
        let state = threadState.value
        state.silenced.append((ObjectIdentifier(object), key))
        openSilences.add(1, ordering: .relaxed)
        defer {
            openSilences.add(-1, ordering: .relaxed)
            state.silenced.removeLast()
        }
        return try body()
    }

    /// Whether automatic notifications for `key` of `object` are suppressed on this thread right now.
    static func isSilenced(object: KVOObject, key: String) -> Bool {
        // Only the silencing thread itself can see its own span, and it incremented the count before, so a zero
        // read here means this thread has none open.
        guard openSilences.load(ordering: .relaxed) != 0 else { return false }
        guard let state = threadState.valueIfCreated, !state.silenced.isEmpty else { return false }
        let identity = ObjectIdentifier(object)
        return state.silenced.contains { $0.0 == identity && $0.1.isSameKey(as: key) }
    }

    /// Reads a manually announced key through key-value coding (reporting a failed read only when asked to).
    private static func ownValueReader(of object: KVOObject, key: String) -> (Bool) -> Any? {
        { reportingMisuse in KeyValueReading.value(of: object, forKey: key, reportingMisuse: reportingMisuse) }
    }
}
