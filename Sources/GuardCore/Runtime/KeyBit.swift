/// Maps a key to one bit of a 64-bit mask, so a setter can tell "nobody watches this key" with one AND.
///
/// Distinct keys may share a bit; that only sends a setter down the slow path, which then finds no observers.
enum KeyBit {
    /// The bit for `key`: its ``KeyHash`` modulo 64.
    static func of(_ key: String) -> UInt64 {
        of(hash: KeyHash.of(key))
    }

    /// The bit for a key whose ``KeyHash`` is `hash`.
    static func of(hash: UInt64) -> UInt64 {
        1 << (hash % 64)
    }
}
