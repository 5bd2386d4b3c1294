/// A set of keys or key paths told apart by their UTF-8 bytes, as ``ExactKey`` tells them apart (two spellings of one
/// string are two keys). While it holds at most ``linearLimit`` keys (the common case: one object's few key paths) it
/// is a short array searched in order, which costs no hashing; past that it is hashed, so a lookup costs the same
/// however many keys it holds.
struct ExactKeySet {
    /// The most keys kept in the array; one more moves them all into the hashed set.
    static let linearLimit = 8

    /// The keys while there are at most ``linearLimit``; empty once they are hashed.
    private var few: [String] = []
    /// Every key once there are more than ``linearLimit``; empty before.
    private var many: Set<ExactKey> = []

    /// Whether the keys are hashed (there are more than ``linearLimit``).
    var isHashed: Bool { !many.isEmpty }

    /// How many keys the set holds.
    var count: Int { isHashed ? many.count : few.count }

    /// Whether the set holds `key` (the same bytes).
    func contains(_ key: String) -> Bool {
        if isHashed { return many.contains(ExactKey(key)) }
        return few.contains { $0.isSameKey(as: key) }
    }

    /// Adds `key` unless the set holds it already; returns whether it was added.
    @discardableResult
    mutating func insert(_ key: String) -> Bool {
        if isHashed { return many.insert(ExactKey(key)).inserted }
        if few.contains(where: { $0.isSameKey(as: key) }) { return false }
        guard few.count == Self.linearLimit else {
            few.append(key)
            return true
        }
        var hashed = Set(few.map(ExactKey.init))
        hashed.insert(ExactKey(key))
        many = hashed
        few = []
        return true
    }
}
