extension KVOObject {
    /// How many observances this object has, for all key paths.
    public var observationCount: Int {
        existingTable?.observanceCount ?? 0
    }

    /// How many observances this object has for `keyPath` (duplicates count separately).
    public func observationCount(forKeyPath keyPath: String) -> Int {
        existingTable?.observanceCount(forKeyPath: keyPath) ?? 0
    }

    /// The key paths this object has observances for, sorted.
    public var observedKeyPaths: [String] {
        // Each key path once, told apart by its bytes (two spellings of one string are two key paths).
        var seen = Set<ExactKey>()
        return (existingTable?.allObservances ?? []).map(\.keyPath).filter { seen.insert(ExactKey($0)).inserted }
            .sortedAsKeys()
    }

    /// Foundation-style observation info: one line per observance (observer, key path, options, context).
    public var observationInfo: String {
        let lines = (existingTable?.allObservances ?? []).map(\.infoLine)
        return "<ObservationInfo \(ObjectDescription.of(self))> (\n" + lines.joined(separator: "\n") + "\n)"
    }
}
