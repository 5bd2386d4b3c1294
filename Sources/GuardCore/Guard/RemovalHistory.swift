/// The (object, key path) pairs a controller removed, so a later removal can be told apart: *double removal*
/// versus *removal of something never registered*.
///
/// An entry is consulted only when nothing is registered for its pair, so registering the pair again needs no
/// change here: "it was removed before" stays true. An entry must recognize its object later without keeping it
/// alive, and a new object may reuse a dead one's address. For a ``KVOObject`` the entry keeps the object's
/// observation table, which belongs to that object for good and knows when it deinitialized; any other object is
/// held weakly. (A weak reference would give every removed ``KVOObject`` a side table, which makes each later retain
/// and release of it slower.) One object with one removed key path costs one small entry; one with many keeps them
/// hashed, so telling a removal apart costs the same however many key paths were removed from it.
///
/// The entries live in the controller's per-object records (``ObjectRecord/removals``), beside the object's
/// registrations, so that an `unobserve` takes the registration out and records its removal with one lookup; this
/// type keeps their count and sweeps them. Entries whose object is gone no longer count and are swept out once the
/// history grows, so the history stays about as large as the set of live objects the controller removed
/// registrations from.
struct RemovalHistory {
    /// What was removed from one object.
    final class Entry {
        private let table: ObservationTable?
        /// `table`'s address, compared without touching `table`'s reference count.
        private let tableAddress: UnsafeMutableRawPointer?
        private weak var object: AnyObject?
        private let keyPath: String
        /// Any other key paths removed from the object: one object may have many removed over its life, and a lookup
        /// must not cost more for that.
        private var moreKeyPaths = ExactKeySet()

        init(object: AnyObject, keyPath: String) {
            if let object = object as? KVOObject {
                let table = object.table
                self.table = table
                tableAddress = Unmanaged.passUnretained(table).toOpaque()
            } else {
                table = nil
                tableAddress = nil
                self.object = object
            }
            self.keyPath = keyPath
        }

        /// An entry about the ``KVOObject`` whose observation table is `table`.
        init(table: ObservationTable, keyPath: String) {
            self.table = table
            tableAddress = Unmanaged.passUnretained(table).toOpaque()
            self.keyPath = keyPath
        }

        /// Whether this entry is about `object` (and not about a dead object that had its address), whose
        /// observation table is at `objectTable` (see ``RemovalHistory/tableAddress(of:)``).
        func isAbout(_ object: AnyObject, objectTable: UnsafeMutableRawPointer?) -> Bool {
            guard let tableAddress else { return self.object === object }
            return objectTable == tableAddress
        }

        /// Whether this entry is about the ``KVOObject`` whose observation table is `table`.
        func isAbout(table: ObservationTable) -> Bool {
            tableAddress == Unmanaged.passUnretained(table).toOpaque()
        }

        /// Whether the object this entry is about still lives. A weakly held object can only be asked by taking a
        /// strong reference to it, which may turn out to be the last one: a living one is appended to `survivors`.
        func objectLives(keepingSurvivorsIn survivors: inout [AnyObject]) -> Bool {
            if let table { return !table.objectIsDeinitialized }
            guard let object else { return false }
            survivors.append(object)
            return true
        }

        func contains(_ keyPath: String) -> Bool {
            self.keyPath.isSameKey(as: keyPath) || moreKeyPaths.contains(keyPath)
        }

        func add(_ keyPath: String) {
            if !self.keyPath.isSameKey(as: keyPath) { moreKeyPaths.insert(keyPath) }
        }
    }

    /// How many records have an entry.
    private(set) var count = 0
    private var sweepThreshold = 64

    /// Records in `entry` (the entry of `object`'s record) that `keyPath` was removed from `object`, whose
    /// ``tableAddress(of:)`` is `objectTable`. Returns whether the history grew past its threshold: the caller then
    /// calls ``sweep(_:keepingSurvivorsIn:)`` once it no longer holds the record.
    mutating func remember(
        _ keyPath: String, of object: AnyObject, objectTable: UnsafeMutableRawPointer?, in entry: inout Entry?
    ) -> Bool {
        // The common case, an object removed from before: no allocation, and the entry is used where it is (binding
        // it to a name would take a reference).
        if entry?.isAbout(object, objectTable: objectTable) == true {
            entry!.add(keyPath)
            return false
        }
        return store(Entry(object: object, keyPath: keyPath), in: &entry)
    }

    /// Records in `entry` that `keyPath` was removed from the ``KVOObject`` whose observation table is `table`, while
    /// that object runs its deinit (its weak references read `nil` already, but it may still ask about its removals
    /// there). Returns what ``remember(_:of:objectTable:in:)`` returns.
    mutating func remember(
        _ keyPath: String, deinitializingObjectTable table: ObservationTable, in entry: inout Entry?
    ) -> Bool {
        if let existing = entry, existing.isAbout(table: table) {
            existing.add(keyPath)
            return false
        }
        return store(Entry(table: table, keyPath: keyPath), in: &entry)
    }

    /// Makes `new` the entry, replacing one about a dead object that had the same address; returns whether the
    /// history is due for a sweep.
    private mutating func store(_ new: Entry, in entry: inout Entry?) -> Bool {
        let isNew = entry == nil
        // A replaced entry (about a dead object) holds nothing user-owned: releasing it here is harmless.
        entry = new
        guard isNew else { return false }
        count += 1
        return count > sweepThreshold
    }

    /// Whether `entry` (of `object`'s record) says `keyPath` was removed from this very `object` (whose
    /// ``tableAddress(of:)`` is `objectTable`) before.
    static func contains(
        _ keyPath: String, of object: AnyObject, objectTable: UnsafeMutableRawPointer?, in entry: Entry?
    ) -> Bool {
        guard let entry, entry.isAbout(object, objectTable: objectTable) else { return false }
        return entry.contains(keyPath)
    }

    /// Whether `entry` (of `object`'s record) says anything was removed from this very `object` before.
    static func containsAny(of object: AnyObject, in entry: Entry?) -> Bool {
        guard let entry else { return false }
        return entry.isAbout(object, objectTable: tableAddress(of: object))
    }

    /// The address of `object`'s observation table if it is a ``KVOObject`` that has one (what recognizes it, see
    /// ``Entry``), `nil` otherwise. The caller keeps `object` alive.
    static func tableAddress(of object: AnyObject) -> UnsafeMutableRawPointer? {
        tableAddress(of: KVOObject.unretained(object))
    }

    /// ``tableAddress(of:)`` of an object already cast: `object` is it as a ``KVOObject``, or `nil` if it is none.
    static func tableAddress(of object: Unmanaged<KVOObject>?) -> UnsafeMutableRawPointer? {
        object?._withUnsafeGuaranteedRef { $0.existingTableReference }?.toOpaque()
    }

    /// Drops from `records` the entries whose object is gone, and the records that leave empty. The weakly held
    /// objects found alive are appended to `survivors`: the caller releases them after unlocking, since a reference
    /// taken to check an object may turn out to be its last, and its deinit must not run under the lock.
    mutating func sweep(_ records: inout IdentityTable<ObjectRecord>, keepingSurvivorsIn survivors: inout [AnyObject]) {
        records.updateAll { record in
            guard let entry = record?.removals, !entry.objectLives(keepingSurvivorsIn: &survivors) else { return }
            record!.removals = nil
            count -= 1
            if record!.isEmpty { record = nil }
        }
        sweepThreshold = max(64, count * 2)
    }
}
