/// The (object, key path) pairs a controller removed, so a later removal can be told apart: *double removal*
/// versus *removal of something never registered*.
///
/// Entries hold their object weakly. An entry whose object is gone no longer counts (a new object may reuse the
/// address) and is swept out once the history grows, so the history stays about as large as the set of live
/// objects the controller removed registrations from.
struct RemovalHistory {
    private final class Entry {
        weak var object: AnyObject?
        var keyPaths: Set<String> = []
        init(object: AnyObject) { self.object = object }
    }

    private var entries: [ObjectIdentifier: Entry] = [:]
    private var sweepThreshold = 64

    /// Records that `key` was removed from `object`.
    mutating func remember(_ key: RegistrationKey, object: AnyObject) {
        let entry: Entry
        if let existing = entries[key.object], existing.object === object {
            entry = existing
        } else {
            entry = Entry(object: object)
            entries[key.object] = entry
        }
        entry.keyPaths.insert(key.keyPath)
        if entries.count > sweepThreshold { sweep() }
    }

    /// Forgets `key` (it was registered again).
    mutating func forget(_ key: RegistrationKey) {
        guard let entry = entries[key.object] else { return }
        entry.keyPaths.remove(key.keyPath)
        if entry.keyPaths.isEmpty { entries[key.object] = nil }
    }

    /// Whether `key` was removed from this very `object` before.
    func contains(_ key: RegistrationKey, object: AnyObject) -> Bool {
        guard let entry = entries[key.object], entry.object === object else { return false }
        return entry.keyPaths.contains(key.keyPath)
    }

    /// Whether anything was removed from this very `object` before.
    func containsAny(of id: ObjectIdentifier, object: AnyObject) -> Bool {
        guard let entry = entries[id], entry.object === object else { return false }
        return !entry.keyPaths.isEmpty
    }

    private mutating func sweep() {
        entries = entries.filter { $0.value.object != nil }
        sweepThreshold = max(64, entries.count * 2)
    }
}
