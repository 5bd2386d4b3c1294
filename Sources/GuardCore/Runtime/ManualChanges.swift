import Foundation
import GuardCoreAtomics

/// The changes each thread has begun with `willChangeValue` and not yet ended with `didChangeValue`.
///
/// Like Foundation, pending changes are per thread: a `didChange` pairs with the most recent `willChange` of the
/// same object and key on the same thread, so nesting (also of different keys) works. A pending change holds its
/// object weakly: when the object deinitializes with a change still pending, the entry is dropped, so it neither
/// leaks nor pairs with a `didChange` of a new object that reuses the address.
enum ManualChanges {
    private struct Pending {
        weak var object: KVOObject?
        let key: String
        var plan: ChangePlan?
        /// Without a plan (nobody to notify when the change began): the table's insertion count before it began, so
        /// its end can re-wire dotted observances inserted meanwhile.
        let epochWithoutPlan: UInt64
    }

    private final class ThreadState {
        var pending: [Pending] = []
        /// Object and key pairs whose automatic notifications are suppressed on this thread (see ``silently``).
        var silenced: [(ObjectIdentifier, String)] = []

        /// Drops entries whose object is gone.
        func forgetDeadObjects() {
            if pending.contains(where: { $0.object == nil }) { pending.removeAll { $0.object == nil } }
        }
    }

    private static let threadState = ThreadLocal { ThreadState() }
    /// How many silenced spans are open on all threads; lets ``isSilenced(object:key:)`` skip the thread-local
    /// lookup in the common case of none.
    private static var openSilences: AtomicWord {
        AtomicWord(gca_open_silences_word())
    }

    /// Begins a change of `key`: snapshots observers, reads old values, sends prior notifications.
    static func willChange(object: KVOObject, key: String, kind: KeyValueChange.Kind, indexes: IndexSet?) {
        let epoch = object.existingTable?.insertionCount ?? 0
        var plan = ChangePlan(object: object, key: key, hash: KeyHash.of(key), kind: kind, indexes: indexes)
        plan?.begin(on: object, readOwnValue: ownValueReader(of: object, key: key))
        let state = threadState.value
        state.forgetDeadObjects()
        state.pending.append(Pending(object: object, key: key, plan: plan, epochWithoutPlan: epoch))
    }

    /// Ends the most recent pending change of `key` on this thread. Without one, reports
    /// ``KVOMisuse/Kind/unpairedDidChange``.
    static func didChange(object: KVOObject, key: String) {
        let state = threadState.value
        state.forgetDeadObjects()
        guard let index = state.pending.lastIndex(where: { $0.object === object && $0.key.isSameKey(as: key) }) else {
            RuntimeMonitor.handle(MisuseMessages.unpairedDidChange(object: object, key: key))
            return
        }
        var pending = state.pending.remove(at: index)
        if pending.plan != nil {
            pending.plan?.end(on: object, readOwnValue: ownValueReader(of: object, key: key))
        } else {
            ChangePlan.rewireDottedJoiners(
                of: object, changeOf: key, hash: KeyHash.of(key), insertedAfter: pending.epochWithoutPlan)
        }
    }

    /// A change begun by a caller that pairs its begin and end itself (a dependent key's relay) instead of through the
    /// thread's pending list: if the caller never ends it, nothing is left behind for another `didChange` to pair with.
    struct DetachedChange {
        fileprivate var plan: ChangePlan?
        fileprivate let epoch: UInt64
        let key: String
    }

    /// Begins a change of `key` that the caller ends with ``endDetached(_:object:)`` (on the same thread).
    static func beginDetached(object: KVOObject, key: String) -> DetachedChange {
        let epoch = object.existingTable?.insertionCount ?? 0
        var plan = ChangePlan(object: object, key: key, hash: KeyHash.of(key), kind: .setting, indexes: nil)
        plan?.begin(on: object, readOwnValue: ownValueReader(of: object, key: key))
        return DetachedChange(plan: plan, epoch: epoch, key: key)
    }

    /// Ends a change begun with ``beginDetached(object:key:)``.
    static func endDetached(_ change: DetachedChange, object: KVOObject) {
        if var plan = change.plan {
            plan.end(on: object, readOwnValue: ownValueReader(of: object, key: change.key))
        } else {
            ChangePlan.rewireDottedJoiners(
                of: object, changeOf: change.key, hash: KeyHash.of(change.key), insertedAfter: change.epoch)
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
