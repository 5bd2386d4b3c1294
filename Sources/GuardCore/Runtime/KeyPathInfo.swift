/// What the runtime needs to know about one key path of one class, worked out once (when the key path is first
/// registered on an object of that class, see ``ObservedClassInfo/keyPathInfo(for:on:)``) and shared by every
/// observance of it: its keys, its ``KeyHash``, the keys whose change announces it, and their ``KeyBit``s.
final class KeyPathInfo: Sendable {
    /// A key whose change announces the key path: its first key, or a key that affects it
    /// (``KVOObject/keyPathsForValuesAffectingValue(forKey:)``), which may itself be a dotted key path.
    struct Trigger: Sendable {
        let key: String
        let hash: UInt64
        let isDotted: Bool
    }

    let keyPath: String
    /// ``KeyHash`` of `keyPath`.
    let hash: UInt64
    /// `account` for `account.balance`; the whole key path when it has one key.
    let firstKey: String
    /// `balance` for `account.balance`; `nil` when the key path has one key.
    let remainingPath: String?
    /// The keys whose change announces the key path, its first key first.
    let triggers: [Trigger]
    /// The ``KeyBit``s of all triggers: what the object's mask must contain while the key path is observed.
    let triggerMask: UInt64
    /// Whether only a change of the key path itself announces it (one key, nothing affecting it), so a table needs
    /// no dependency link for it.
    let isAnnouncedOnlyByItself: Bool
    /// The key path itself if it has more than ``KeyPathSyntax/maximumGuardedComponents`` components, else the first
    /// key path declared to affect it (``KVOObject/keyPathsForValuesAffectingValue(forKey:)``) that has; `nil` when
    /// every one can be followed. A key path with one is never registered (see
    /// ``KVOObject/addObserver(_:forKeyPath:options:context:)``).
    let overlongKeyPath: String?
    /// Where the key path, or a key path declared to affect it, goes through a collection or uses a collection
    /// operator, as far as the declared types of stored properties tell; `nil` if it does not. A key path with one
    /// is never registered (see ``KVOMisuse/Kind/keyPathThroughCollection``).
    let collectionStep: CollectionStep?
    /// Whether the first key's value may be a collection (it is not a stored property declared as a class), so a
    /// registration that must refuse a key path through one reads it to see.
    let firstKeyMayHoldCollection: Bool

    /// Whether the key path has more than one key.
    var isDotted: Bool { remainingPath != nil }

    /// `keyPath` must be well formed; `triggerKeys` starts with its first key.
    init(
        keyPath: String, triggerKeys: [String], overlongKeyPath: String? = nil, collectionStep: CollectionStep? = nil,
        firstKeyMayHoldCollection: Bool = true
    ) {
        self.overlongKeyPath = overlongKeyPath
        self.collectionStep = collectionStep
        self.firstKeyMayHoldCollection = firstKeyMayHoldCollection
        let (first, rest) = KeyPathSyntax.split(keyPath)
        self.keyPath = keyPath
        self.hash = KeyHash.of(keyPath)
        self.firstKey = first
        self.remainingPath = rest
        let triggers = triggerKeys.map { key in
            Trigger(key: key, hash: KeyHash.of(key), isDotted: KeyPathSyntax.isDotted(key))
        }
        self.triggers = triggers
        self.triggerMask = triggers.reduce(0) { $0 | KeyBit.of(hash: $1.hash) }
        self.isAnnouncedOnlyByItself = rest == nil && triggerKeys.count == 1
    }

    /// Whether this is the key path `key`, whose ``KeyHash`` is `hash`.
    @inline(__always)
    func isKeyPath(_ key: String, hash: UInt64) -> Bool {
        // The hash is taken over the bytes: with it equal, `==` is byte equality (see `isSameKey(as:)`).
        self.hash == hash && keyPath.isSameKey(as: key)
    }
}
