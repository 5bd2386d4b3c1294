/// A 64-bit hash of a key or key path string (FNV-1a over its UTF-8 bytes), worked out once per key and kept next
/// to it, so the runtime finds a key among an object's observances by comparing words, not by hashing or comparing
/// strings. Equal strings have equal hashes; a string comparison settles the rare collision.
enum KeyHash {
    /// The hash of `key`.
    static func of(_ key: String) -> UInt64 {
        UTF8Bytes.withBytes(of: key) { bytes in
            var hash: UInt64 = 0xcbf2_9ce4_8422_2325
            for byte in bytes {
                hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01b3
            }
            return hash
        }
    }
}
