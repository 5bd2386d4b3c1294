/// The (object, key path) pairs a controller removed, so a later removal can be told apart: *double removal*
/// versus *removal of something never registered*.
///
/// An entry is consulted only when nothing is registered for its pair, so registering the pair again needs no
/// change here: "it was removed before" stays true. Entries hold their object weakly. An entry whose object is gone
/// no longer counts (a new object may reuse the address) and is swept out once the history grows, so the history
/// stays about as large as the set of live objects the controller removed registrations from. One object with one
/// removed key path costs one small entry.
struct RemovalHistory {
    private final class Entry {
        weak var object: AnyObject?
        var keyPath: String
        var moreKeyPaths: [String] = []

        init(object: AnyObject, keyPath: String) {
            self.object = object
            self.keyPath = keyPath
        }

        func contains(_ keyPath: String) -> Bool {
            self.keyPath == keyPath || moreKeyPaths.contains(keyPath)
        }
    }

    private var entries: [ObjectIdentifier: Entry] = [:]
    private var sweepThreshold = 64

    /// Records that `keyPath` was removed from `object` (whose identity is `id`).
    mutating func remember(_ keyPath: String, of id: ObjectIdentifier, object: AnyObject) {
        if let entry = entries[id], entry.object === object {
            if !entry.contains(keyPath) { entry.moreKeyPaths.append(keyPath) }
            return
        }
        entries[id] = Entry(object: object, keyPath: keyPath)
        if entries.count > sweepThreshold { sweep() }
    }

    /// Whether `keyPath` was removed from this very `object` (whose identity is `id`) before.
    func contains(_ keyPath: String, of id: ObjectIdentifier, object: AnyObject) -> Bool {
        guard let entry = entries[id], entry.object === object else { return false }
        return entry.contains(keyPath)
    }

    /// Whether anything was removed from this very `object` before.
    func containsAny(of id: ObjectIdentifier, object: AnyObject) -> Bool {
        guard let entry = entries[id] else { return false }
        return entry.object === object
    }

    private mutating func sweep() {
        entries = entries.filter { $0.value.object != nil }
        sweepThreshold = max(64, entries.count * 2)
    }
}
