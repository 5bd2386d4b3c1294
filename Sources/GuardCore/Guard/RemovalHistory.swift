/// The (object, key path) pairs a controller removed, so a later removal can be told apart: *double removal*
/// versus *removal of something never registered*.
///
/// An entry is consulted only when nothing is registered for its pair, so registering the pair again needs no
/// change here: "it was removed before" stays true. An entry must recognize its object later without keeping it
/// alive, and a new object may reuse a dead one's address. For a ``KVOObject`` the entry keeps the object's
/// observation table, which belongs to that object for good and knows when it deinitialized; any other object is
/// held weakly. (A weak reference would give every removed ``KVOObject`` a side table, which makes each later retain
/// and release of it slower.) Entries whose object is gone no longer count and are swept out once the history grows,
/// so the history stays about as large as the set of live objects the controller removed registrations from. One
/// object with one removed key path costs one small entry; one with many keeps them hashed, so telling a removal
/// apart costs the same however many key paths were removed from it.
struct RemovalHistory {
    private final class Entry {
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
        func objectLives(keepingSurvivorsIn survivors: inout DeferredReleases) -> Bool {
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

    private let entries = IdentityTable<Entry>()
    private var sweepThreshold = 64
    /// The entry at `lastID` in `entries`, the last one a removal used: an object removed from again and again (an
    /// observe/unobserve loop) is recognized without a lookup. Always the very entry `entries` holds there, or `nil`
    /// (a store that replaces it sets it anew, a sweep clears it), so it needs no reference of its own.
    private var lastEntry: Unmanaged<Entry>?
    private var lastID: ObjectIdentifier?

    /// Records that `keyPath` was removed from `object` (whose identity is `id`). The weakly held objects a sweep of
    /// the history found alive are appended to `survivors`: the caller releases them after unlocking, since a
    /// reference taken to check an object may turn out to be its last, and its deinit must not run under the lock.
    mutating func remember(
        _ keyPath: String, of id: ObjectIdentifier, object: AnyObject,
        keepingSurvivorsIn survivors: inout DeferredReleases
    ) {
        remember(
            keyPath, of: id, object: object, objectTable: Self.tableAddress(of: object), keepingSurvivorsIn: &survivors)
    }

    /// ``remember(_:of:object:keepingSurvivorsIn:)`` for a caller that knows `object`'s ``tableAddress(of:)``
    /// already: `objectTable`.
    mutating func remember(
        _ keyPath: String, of id: ObjectIdentifier, object: AnyObject, objectTable: UnsafeMutableRawPointer?,
        keepingSurvivorsIn survivors: inout DeferredReleases
    ) {
        // The commonest case, the object the last removal was from: no lookup.
        if lastID == id, let lastEntry,
            lastEntry._withUnsafeGuaranteedRef({ entry in
                guard entry.isAbout(object, objectTable: objectTable) else { return false }
                entry.add(keyPath)
                return true
            })
        {
            return
        }
        // Another object removed from before: one lookup, no allocation.
        let found = entries.value(for: id)
        if let found, found.isAbout(object, objectTable: objectTable) {
            found.add(keyPath)
            lastEntry = Unmanaged.passUnretained(found)
            lastID = id
            return
        }
        store(Entry(object: object, keyPath: keyPath), for: id, keepingSurvivorsIn: &survivors)
    }

    /// Records that `keyPath` was removed from the ``KVOObject`` whose identity is `id` and whose observation table
    /// is `table`, while that object runs its deinit (its weak references read `nil` already, but it may still ask
    /// about its removals there).
    mutating func remember(
        _ keyPath: String, of id: ObjectIdentifier, deinitializingObjectTable table: ObservationTable,
        keepingSurvivorsIn survivors: inout DeferredReleases
    ) {
        if let entry = entries.value(for: id), entry.isAbout(table: table) {
            entry.add(keyPath)
            return
        }
        store(Entry(table: table, keyPath: keyPath), for: id, keepingSurvivorsIn: &survivors)
    }

    /// Makes `entry` the one at `id`, replacing an entry about a dead object that had the same address, and sweeps
    /// the history when it grew past the threshold.
    private mutating func store(
        _ entry: Entry, for id: ObjectIdentifier, keepingSurvivorsIn survivors: inout DeferredReleases
    ) {
        let replaced = entries.update(id) { slot -> Entry? in
            defer { slot = entry }
            return slot
        }
        lastEntry = Unmanaged.passUnretained(entry)
        lastID = id
        // The replaced entry (about a dead object) holds nothing user-owned: releasing it here is harmless.
        if replaced == nil, entries.count > sweepThreshold { sweep(keepingSurvivorsIn: &survivors) }
    }

    /// Whether `keyPath` was removed from this very `object` (whose identity is `id`, and whose
    /// ``tableAddress(of:)`` is `objectTable`) before.
    func contains(
        _ keyPath: String, of id: ObjectIdentifier, object: AnyObject, objectTable: UnsafeMutableRawPointer?
    ) -> Bool {
        guard let entry = entries.value(for: id), entry.isAbout(object, objectTable: objectTable) else { return false }
        return entry.contains(keyPath)
    }

    /// Whether anything was removed from this very `object` before.
    func containsAny(of id: ObjectIdentifier, object: AnyObject) -> Bool {
        guard let entry = entries.value(for: id) else { return false }
        return entry.isAbout(object, objectTable: Self.tableAddress(of: object))
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

    private mutating func sweep(keepingSurvivorsIn survivors: inout DeferredReleases) {
        entries.removeAll { !$0.objectLives(keepingSurvivorsIn: &survivors) }
        // The last entry may be gone from `entries` now.
        lastEntry = nil
        lastID = nil
        sweepThreshold = max(64, entries.count * 2)
    }
}
