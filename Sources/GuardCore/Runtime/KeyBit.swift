/// Maps a key to one bit of a 64-bit mask, so a setter can tell "nobody watches this key" with one AND.
///
/// Distinct keys may share a bit; that only sends a setter down the slow path, which then finds no observers.
enum KeyBit {
    /// The bit for `key`: FNV-1a of its UTF-8 bytes, modulo 64.
    static func of(_ key: String) -> UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in key.utf8 {
            hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01b3
        }
        return 1 << (hash % 64)
    }
}
