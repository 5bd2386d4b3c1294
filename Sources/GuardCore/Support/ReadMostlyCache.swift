/// A process-wide cache of values that are computed once and never change (per-class tables, key names), read
/// without a process-wide lock: each thread keeps its own copy of what it looked up, and only a miss takes the
/// shared lock. The value is built outside every lock, so building may call back into code that uses the cache.
package final class ReadMostlyCache<Key: Hashable & SendableMetatype, Value: SendableMetatype>: @unchecked Sendable {
    private final class LocalCopy {
        var entries: [Key: Value] = [:]
    }

    private let shared = Protected<[Key: Value]>([:])
    private let local = ThreadLocal { LocalCopy() }

    /// Creates an empty cache.
    package init() {}

    /// The cached value for `key`, built with `make` on the first miss anywhere in the process. Two threads that
    /// miss at once may both build; the first to finish wins and both get its value.
    package func value(for key: Key, orMake make: () -> Value) -> Value {
        let copy = local.value
        if let hit = copy.entries[key] { return hit }
        let value: Value
        if let known = shared.withValue({ $0[key] }) {
            value = known
        } else {
            let made = make()
            value = shared.withValue { entries in
                if let raced = entries[key] { return raced }
                entries[key] = made
                return made
            }
        }
        copy.entries[key] = value
        return value
    }

    /// The cached value for `key`, or `nil` (and nothing cached) when `make` gives none.
    package func valueIfPossible(for key: Key, make: () -> Value?) -> Value? {
        let copy = local.value
        if let hit = copy.entries[key] { return hit }
        if let known = shared.withValue({ $0[key] }) {
            copy.entries[key] = known
            return known
        }
        guard let made = make() else { return nil }
        return value(for: key) { made }
    }
}
