/// Per-class facts the runtime derives from class methods and caches: what it needs to know about each key path
/// registered on objects of a class (``KeyPathInfo``), and the computed keys known to exist. Both caches are bounded
/// (a model whose `value(forKey:)` answers arbitrary keys must not make them grow without end): past ``cacheLimit``
/// entries they start over, which costs only recomputing.
enum ObservedClassInfo {
    private struct ClassKey: Hashable {
        let type: ObjectIdentifier
        let key: ExactKey

        init(type: ObjectIdentifier, key: String) {
            self.type = type
            self.key = ExactKey(key)
        }
    }

    /// How many entries each cache keeps at most.
    static let cacheLimit = 1_024

    private static let keyPaths = ReadMostlyCache<ClassKey, KeyPathInfo>(capacity: cacheLimit)
    private static let computedKeys = Protected<Set<ClassKey>>([])
    /// How many times ``computedKeys`` started over.
    private static let computedKeysStartedOver = AtomicCell()

    /// What the runtime knows about `keyPath` on objects of `object`'s class, or `nil` if it cannot be registered
    /// there: it is not well formed, or `object` does not know its first key (asked without reporting a misuse).
    /// Only key paths that can be registered are cached: an unknown key is asked about again next time.
    static func keyPathInfo(for keyPath: String, on object: KVOObject) -> KeyPathInfo? {
        let type = type(of: object)
        return keyPaths.valueIfPossible(for: ClassKey(type: ObjectIdentifier(type), key: keyPath)) {
            guard KeyPathSyntax.isWellFormed(keyPath) else { return nil }
            let first = KeyPathSyntax.firstKey(of: keyPath)
            guard object.isKnownKey(first) else { return nil }
            let (triggers, overlongDependency) = triggerKeys(forFirstKey: first, of: type)
            let isOverlong = KeyPathSyntax.hasMoreComponents(than: KeyPathSyntax.maximumGuardedComponents, keyPath)
            let isDotted = KeyPathSyntax.isDotted(keyPath)
            return KeyPathInfo(
                keyPath: keyPath, triggerKeys: triggers, overlongKeyPath: isOverlong ? keyPath : overlongDependency,
                collectionStep: isOverlong ? nil : collectionStep(of: keyPath, triggers: triggers, on: type),
                firstKeyMayHoldCollection: isDotted && CollectionStep.mayHoldCollection(first, of: type))
        }
    }

    /// The first place where `keyPath` or one of its dotted triggers goes through a collection (see
    /// ``CollectionStep/find(in:from:)``).
    private static func collectionStep(of keyPath: String, triggers: [String], on type: KVOObject.Type) -> CollectionStep? {
        if KeyPathSyntax.isDotted(keyPath), let step = CollectionStep.find(in: keyPath, from: type) { return step }
        for trigger in triggers.dropFirst() where KeyPathSyntax.isDotted(trigger) {
            if let step = CollectionStep.find(in: trigger, from: type) { return step }
        }
        return nil
    }

    /// The keys whose change must announce a key path whose first key is `first`: `first`, then every key that
    /// affects it (``KVOObject/keyPathsForValuesAffectingValue(forKey:)``, followed transitively). A dotted affecting
    /// key path is a trigger as a whole (a ``DependencyRelay`` announces it when any key along it changes) and is not
    /// followed further. One with more than ``KeyPathSyntax/maximumGuardedComponents`` components is not a trigger:
    /// it is returned as `overlong` (the first one met) and the key path is never registered.
    private static func triggerKeys(
        forFirstKey first: String, of type: KVOObject.Type
    ) -> (triggers: [String], overlong: String?) {
        var overlong: String?
        var ordered = [first]
        // Told apart by their bytes, like every key (see `isSameKey(as:)`): two spellings of one string are two keys.
        var seen: Set<ExactKey> = [ExactKey(first)]
        var queue = [first]
        while let key = queue.popLast() {
            for affecting in type.keyPathsForValuesAffectingValue(forKey: key).sortedAsKeys()
            where KeyPathSyntax.isWellFormed(affecting) && seen.insert(ExactKey(affecting)).inserted {
                if KeyPathSyntax.hasMoreComponents(than: KeyPathSyntax.maximumGuardedComponents, affecting) {
                    overlong = overlong ?? affecting
                    continue
                }
                ordered.append(affecting)
                if !KeyPathSyntax.isDotted(affecting) { queue.append(affecting) }
            }
        }
        return (ordered, overlong)
    }

    static func isKnownComputedKey(_ key: String, of type: KVOObject.Type) -> Bool {
        computedKeys.read { $0.contains(ClassKey(type: ObjectIdentifier(type), key: key)) }
    }

    static func noteKnownComputedKey(_ key: String, of type: KVOObject.Type) {
        computedKeys.withValue { keys in
            if keys.count >= cacheLimit {
                keys.removeAll(keepingCapacity: true)
                _ = computedKeysStartedOver.word.add(1, ordering: .acquiringAndReleasing)
            }
            keys.insert(ClassKey(type: ObjectIdentifier(type), key: key))
        }
    }

    /// How many times either cache started over (dropped every entry it held) in this process.
    static var startedOverCount: UInt64 {
        keyPaths.startedOverCount &+ computedKeysStartedOver.word.load(ordering: .acquiring)
    }

    /// Entries held by both caches (the shared copies), for tests.
    static var cachedEntryCount: Int {
        computedKeys.current.count + keyPaths.sharedCount
    }
}
