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
        // `==` turns different keys away at once (equal bytes imply canonical equivalence); the keys it calls equal
        // are the same bytes when their representations are identical (one storage, or the same small string), and
        // otherwise their bytes are compared.
        guard self == other else { return false }
        let sameRepresentation = withUnsafeBytes(of: self) { mine in
            withUnsafeBytes(of: other) { theirs in memcmp(mine.baseAddress!, theirs.baseAddress!, mine.count) == 0 }
        }
        if sameRepresentation { return true }
        let compared = utf8.withContiguousStorageIfAvailable { mine in
            other.utf8.withContiguousStorageIfAvailable { theirs in
                guard mine.count == theirs.count, !mine.isEmpty else { return mine.count == theirs.count }
                return memcmp(mine.baseAddress!, theirs.baseAddress!, mine.count) == 0
            }
        }
        return (compared ?? nil) ?? utf8.elementsEqual(other.utf8)
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
