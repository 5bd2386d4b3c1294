/// Per-class facts the runtime derives from class methods and caches: the keys that trigger a key path, and the
/// computed keys known to exist.
enum ObservedClassInfo {
    private struct ClassKey: Hashable {
        let type: ObjectIdentifier
        let key: String
    }

    private static let triggers = ReadMostlyCache<ClassKey, [String]>()
    private static let computedKeys = Protected<Set<ClassKey>>([])

    /// The keys whose change must announce `keyPath`: its first key, then every key that affects it
    /// (``KVOObject/keyPathsForValuesAffectingValue(forKey:)``, followed transitively; for dotted entries, their
    /// first key).
    static func triggerKeys(for keyPath: String, of type: KVOObject.Type) -> [String] {
        let first = firstKey(of: keyPath)
        return triggers.value(for: ClassKey(type: ObjectIdentifier(type), key: first)) {
            var ordered = [first]
            var seen: Set<String> = [first]
            var queue = [first]
            while let key = queue.popLast() {
                for affecting in type.keyPathsForValuesAffectingValue(forKey: key).sorted() {
                    let trigger = firstKey(of: affecting)
                    if seen.insert(trigger).inserted {
                        ordered.append(trigger)
                        queue.append(trigger)
                    }
                }
            }
            return ordered
        }
    }

    static func isKnownComputedKey(_ key: String, of type: KVOObject.Type) -> Bool {
        computedKeys.withValue { $0.contains(ClassKey(type: ObjectIdentifier(type), key: key)) }
    }

    static func noteKnownComputedKey(_ key: String, of type: KVOObject.Type) {
        _ = computedKeys.withValue { $0.insert(ClassKey(type: ObjectIdentifier(type), key: key)) }
    }

    /// `account` for `account.balance`.
    static func firstKey(of keyPath: String) -> String {
        guard let dot = keyPath.firstIndex(of: ".") else { return keyPath }
        return String(keyPath[..<dot])
    }
}
