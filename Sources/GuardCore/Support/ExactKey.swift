#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Keys and key paths are told apart by their UTF-8 bytes, as Foundation tells `NSString` keys apart and as
/// ``KeyHash`` hashes them. Swift's `String` equality is canonical equivalence instead: `"caf\u{E9}"` (é as one
/// scalar) and `"cafe\u{301}"` (e and a combining accent) are one `String` to `==` but two keys, and mixing the two
/// notions would let the second spelling find what the first one registered, cached or named.
extension String {
    /// Whether `self` and `other` are the same key: the same UTF-8 bytes. (Where a key's ``KeyHash``, which is taken
    /// over its bytes, has already matched, `==` settles it: two spellings of one string have different hashes.)
    @inline(__always)
    func isSameKey(as other: String) -> Bool {
        // Identical representations (one storage, or the same small string) are the same bytes: the common case,
        // settled first. Otherwise `==` turns different keys away (equal bytes imply canonical equivalence), and the
        // bytes of the keys it calls equal are compared.
        if hasSameRepresentation(as: other) { return true }
        guard self == other else { return false }
        let compared = utf8.withContiguousStorageIfAvailable { mine in
            other.utf8.withContiguousStorageIfAvailable { theirs in
                guard mine.count == theirs.count, !mine.isEmpty else { return mine.count == theirs.count }
                return memcmp(mine.baseAddress!, theirs.baseAddress!, mine.count) == 0
            }
        }
        return (compared ?? nil) ?? utf8.elementsEqual(other.utf8)
    }

    /// Whether `self` and `other` are bit for bit the same `String` value. Compared as two words in registers on
    /// 64-bit platforms: comparing the bytes in memory stores both strings and reloads them at another width, which
    /// stalls on store forwarding.
    @inline(__always)
    private func hasSameRepresentation(as other: String) -> Bool {
        #if _pointerBitWidth(_64)
        let mine = unsafeBitCast(self, to: (UInt64, UInt64).self)
        let theirs = unsafeBitCast(other, to: (UInt64, UInt64).self)
        return mine.0 == theirs.0 && mine.1 == theirs.1
        #else
        return withUnsafeBytes(of: self) { mine in
            withUnsafeBytes(of: other) { theirs in memcmp(mine.baseAddress!, theirs.baseAddress!, mine.count) == 0 }
        }
        #endif
    }
}

extension Sequence<String> {
    /// The keys in the order of their UTF-8 bytes: a total order on keys. (`sorted()` orders by canonical
    /// equivalence, under which two spellings of one string are neither before nor after each other, so their order
    /// would depend on where they came from.)
    func sortedAsKeys() -> [String] {
        sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
    }
}

/// A key or key path as a dictionary key or set element: equal to another only with the same UTF-8 bytes.
struct ExactKey: Hashable, Sendable {
    let string: String

    init(_ string: String) {
        self.string = string
    }

    static func == (lhs: ExactKey, rhs: ExactKey) -> Bool {
        lhs.string.isSameKey(as: rhs.string)
    }

    func hash(into hasher: inout Hasher) {
        UTF8Bytes.withBytes(of: string) { hasher.combine(bytes: UnsafeRawBufferPointer($0)) }
    }
}
