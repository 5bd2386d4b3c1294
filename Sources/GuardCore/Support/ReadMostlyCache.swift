/// A process-wide cache of values that are computed once and never change (per-class tables, key names), read
/// without a process-wide lock: each thread keeps its own copy of what it looked up, and only a miss takes the
/// shared lock. The value is built outside every lock, so building may call back into code that uses the cache.
///
/// With a capacity, the cache never holds more than that many entries: when the shared copy is full it starts over
/// (a new generation), and each thread drops its own copy when it sees the generation change. Values are pure
/// functions of their keys, so starting over only costs recomputation.
///
/// Each thread also remembers the last few entries it looked up, so asking again for one of them (a registration
/// that checks a key path and then registers it; a screen that binds a few keys of each of its models) compares a
/// few keys instead of hashing one.
package final class ReadMostlyCache<Key: Hashable & SendableMetatype, Value: SendableMetatype>: @unchecked Sendable {
    /// One thread's copy; only that thread touches it, so the run-time exclusivity checks would only cost time.
    private final class LocalCopy {
        /// How many entries ``recent`` keeps.
        static var recentCapacity: Int { 8 }

        @exclusivity(unchecked) var generation: UInt64 = 0
        @exclusivity(unchecked) var entries: [Key: Value] = [:]
        /// The last entries looked up, a ring of at most ``recentCapacity``; each is also in `entries`.
        @exclusivity(unchecked) private var recent: ContiguousArray<(key: Key, value: Value)> = []
        /// Where the next entry goes once ``recent`` is full: over the oldest.
        @exclusivity(unchecked) private var nextRecent = 0

        func hit(_ key: Key) -> Value? {
            if let index = recent.firstIndex(where: { $0.key == key }) { return recent[index].value }
            guard let value = entries[key] else { return nil }
            rememberRecent(key, value)
            return value
        }

        /// Puts `key` and its `value` among the recent entries, over the oldest once they are full.
        func rememberRecent(_ key: Key, _ value: Value) {
            if recent.count < Self.recentCapacity {
                recent.append((key, value))
            } else {
                recent[nextRecent] = (key, value)
                nextRecent = (nextRecent + 1) % Self.recentCapacity
            }
        }

        /// Forgets everything (the shared copy started over).
        func clear() {
            entries.removeAll()
            recent.removeAll()
            nextRecent = 0
        }
    }

    private struct Shared {
        var generation: UInt64 = 0
        var entries: [Key: Value] = [:]
    }

    private let shared = Protected(Shared())
    private let generation = AtomicCell()
    private let local = ThreadLocal { LocalCopy() }
    private let capacity: Int

    /// Creates an empty cache holding at most `capacity` entries (unbounded by default: for keys that are
    /// bounded by the program itself, such as classes and key path literals).
    package init(capacity: Int = .max) {
        self.capacity = capacity
    }

    /// How many entries the shared copy holds now.
    package var sharedCount: Int {
        shared.read { $0.entries.count }
    }

    /// How many times the shared copy started over (dropping every entry) since the cache was created: a caller that
    /// filled the cache ahead of time compares it with the count it saw then to know whether its entries are all
    /// still there. One atomic load.
    package var startedOverCount: UInt64 {
        generation.word.load(ordering: .acquiring)
    }

    /// The cached value for `key`, built with `make` on the first miss anywhere in the process. Two threads that
    /// miss at once may both build; the first to finish wins and both get its value.
    package func value(for key: Key, orMake make: () -> Value) -> Value {
        let copy = currentLocalCopy()
        if let hit = copy.hit(key) { return hit }
        let value: Value
        if let known = shared.read({ $0.entries[key] }) {
            value = known
        } else {
            let made = make()
            value = store(made, for: key)
        }
        remember(value, for: key, in: copy)
        return value
    }

    /// The cached value for `key`, or `nil` (and nothing cached) when `make` gives none.
    package func valueIfPossible(for key: Key, make: () -> Value?) -> Value? {
        let copy = currentLocalCopy()
        if let hit = copy.hit(key) { return hit }
        if let known = shared.read({ $0.entries[key] }) {
            remember(known, for: key, in: copy)
            return known
        }
        guard let made = make() else { return nil }
        return value(for: key) { made }
    }

    /// This thread's copy, emptied first if the shared copy started over since the thread last looked.
    private func currentLocalCopy() -> LocalCopy {
        let copy = local.value
        SchedulePoints.access(self, .cacheGeneration, .read)
        let current = generation.word.load(ordering: .acquiring)
        if copy.generation != current {
            copy.clear()
            copy.generation = current
        }
        return copy
    }

    private func remember(_ value: Value, for key: Key, in copy: LocalCopy) {
        if copy.entries.count >= capacity { copy.clear() }
        copy.entries[key] = value
        copy.rememberRecent(key, value)
    }

    /// Stores `made` unless another thread stored a value first; returns the value that stays. The replaced shared
    /// dictionary (when starting over) is released after unlocking.
    private func store(_ made: Value, for key: Key) -> Value {
        let (value, discarded) = shared.withValue { shared -> (Value, [Key: Value]) in
            if let raced = shared.entries[key] { return (raced, [:]) }
            var discarded: [Key: Value] = [:]
            if shared.entries.count >= capacity {
                discarded = shared.entries
                shared.entries = [:]
                shared.generation &+= 1
                SchedulePoints.access(self, .cacheGeneration, .write)
                generation.word.store(shared.generation, ordering: .releasing)
            }
            shared.entries[key] = made
            return (made, discarded)
        }
        withExtendedLifetime(discarded) {}
        return value
    }
}
