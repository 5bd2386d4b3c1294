/// Keys and key paths are told apart by their UTF-8 bytes, as Foundation tells `NSString` keys apart and as
/// ``KeyHash`` hashes them. Swift's `String` equality is canonical equivalence instead: `"caf\u{E9}"` (é as one
/// scalar) and `"cafe\u{301}"` (e and a combining accent) are one `String` to `==` but two keys, and mixing the two
/// notions would let the second spelling find what the first one registered, cached or named.
extension String {
    /// Whether `self` and `other` are the same key: the same UTF-8 bytes.
    @inline(__always)
    func isSameKey(as other: String) -> Bool {
        UTF8Bytes.withBytes(of: self) { mine in
            UTF8Bytes.withBytes(of: other) { theirs in mine.elementsEqual(theirs) }
        }
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
