/// Per-class facts the runtime derives from class methods and caches: the keys that trigger a key path, and the
/// computed keys known to exist. Both caches are bounded (a model whose `value(forKey:)` answers arbitrary keys
/// must not make them grow without end): past ``cacheLimit`` entries they start over, which costs only recomputing.
enum ObservedClassInfo {
    private struct ClassKey: Hashable {
        let type: ObjectIdentifier
        let key: String
    }

    /// How many entries each cache keeps at most.
    static let cacheLimit = 1_024

    private static let triggers = ReadMostlyCache<ClassKey, [String]>(capacity: cacheLimit)
    private static let computedKeys = Protected<Set<ClassKey>>([])

    /// The keys whose change must announce `keyPath`: its first key, then every key that affects it
    /// (``KVOObject/keyPathsForValuesAffectingValue(forKey:)``, followed transitively). A dotted affecting key path
    /// is a trigger as a whole (a ``DependencyRelay`` announces it when any key along it changes) and is not
    /// followed further.
    static func triggerKeys(for keyPath: String, of type: KVOObject.Type) -> [String] {
        let first = KeyPathSyntax.firstKey(of: keyPath)
        return triggers.value(for: ClassKey(type: ObjectIdentifier(type), key: first)) {
            var ordered = [first]
            var seen: Set<String> = [first]
            var queue = [first]
            while let key = queue.popLast() {
                for affecting in type.keyPathsForValuesAffectingValue(forKey: key).sorted()
                where KeyPathSyntax.isWellFormed(affecting) && seen.insert(affecting).inserted {
                    ordered.append(affecting)
                    if !KeyPathSyntax.isDotted(affecting) { queue.append(affecting) }
                }
            }
            return ordered
        }
    }

    static func isKnownComputedKey(_ key: String, of type: KVOObject.Type) -> Bool {
        computedKeys.withValue { $0.contains(ClassKey(type: ObjectIdentifier(type), key: key)) }
    }

    static func noteKnownComputedKey(_ key: String, of type: KVOObject.Type) {
        computedKeys.withValue { keys in
            if keys.count >= cacheLimit { keys.removeAll(keepingCapacity: true) }
            keys.insert(ClassKey(type: ObjectIdentifier(type), key: key))
        }
    }

    /// Entries held by both caches (the shared copies), for tests.
    static var cachedEntryCount: Int {
        computedKeys.current.count + triggers.sharedCount
    }
}
