extension KVOObject {
    /// How many registrations this object has, for all key paths.
    public var observationCount: Int {
        existingTable?.observanceCount ?? 0
    }

    /// How many registrations this object has for `keyPath` (duplicates count separately).
    public func observationCount(forKeyPath keyPath: String) -> Int {
        existingTable?.observanceCount(forKeyPath: keyPath) ?? 0
    }

    /// The key paths this object has registrations for, sorted.
    public var observedKeyPaths: [String] {
        Array(Set((existingTable?.allObservances ?? []).map(\.keyPath))).sorted()
    }

    /// Foundation-style observation info: one line per registration (observer, key path, options, context).
    public var observationInfo: String {
        let lines = (existingTable?.allObservances ?? []).map(\.infoLine)
        return "<ObservationInfo \(ObjectDescription.of(self))> (\n" + lines.joined(separator: "\n") + "\n)"
    }
}
