/// The shape of string key paths: `key` or `key.key.key`, no empty component.
///
/// Key paths are split at the "." *scalar* (byte 0x2E), everywhere in GuardCore. Splitting at Characters would
/// disagree for a "." followed by a combining mark (`"a.\u{301}"` is one Character after `a`), so dottedness and
/// splitting could disagree; bytes cannot.
package enum KeyPathSyntax {
    @inline(__always)
    private static var dot: UInt8 { 0x2E }

    /// Whether `keyPath` is non-empty and has no empty component (`""`, `"a."`, `"a..b"` are not well formed).
    package static func isWellFormed(_ keyPath: String) -> Bool {
        UTF8Bytes.withBytes(of: keyPath) { bytes in
            var componentIsEmpty = true
            for byte in bytes {
                if byte == dot {
                    if componentIsEmpty { return false }
                    componentIsEmpty = true
                } else {
                    componentIsEmpty = false
                }
            }
            return !componentIsEmpty
        }
    }

    /// The most components a key path may have to be observed through the guard (see
    /// ``GuardDiagnostic/InvalidArgument/keyPathTooLong``): following a dotted key path recurses once per component.
    /// At this length the recursion stays well inside the smallest common thread stack (512 KB), even in a debug
    /// build.
    package static let maximumGuardedComponents = 128

    /// Whether `keyPath` has more than `limit` components (counting every "." as a separator, so an ill-formed key
    /// path counts its empty components too). Constant time for a key path too short to have that many.
    /// Inlined, so a key path too short (every observe's) costs a comparison, not a call.
    @inline(__always)
    package static func hasMoreComponents(than limit: Int, _ keyPath: String) -> Bool {
        // `limit + 1` components need `limit` dots, so at least `limit` bytes; a native string knows its byte count.
        guard keyPath.utf8.count >= limit else { return false }
        return countsMoreDots(than: limit, keyPath)
    }

    /// Whether `keyPath` has at least `limit` dots.
    private static func countsMoreDots(than limit: Int, _ keyPath: String) -> Bool {
        UTF8Bytes.withBytes(of: keyPath) { bytes in
            var dots = 0
            for byte in bytes where byte == dot {
                dots += 1
                if dots >= limit { return true }
            }
            return false
        }
    }

    /// Whether `keyPath` has more than one key.
    package static func isDotted(_ keyPath: String) -> Bool {
        UTF8Bytes.withBytes(of: keyPath) { $0.contains(dot) }
    }

    /// `account` for `account.balance`; the whole key path when it has one key.
    package static func firstKey(of keyPath: String) -> String {
        split(keyPath).first
    }

    /// For a dotted key path, what comes before the last "." and the last key: `("account.bank", "name")`; for a key
    /// path of one key, `nil` and the key.
    package static func splitLast(_ keyPath: String) -> (head: String?, last: String) {
        UTF8Bytes.withBytes(of: keyPath) { bytes in
            guard let dotIndex = bytes.lastIndex(of: dot) else { return (nil, keyPath) }
            let head = String(decoding: UnsafeBufferPointer(rebasing: bytes[..<dotIndex]), as: UTF8.self)
            let last = String(decoding: UnsafeBufferPointer(rebasing: bytes[(dotIndex + 1)...]), as: UTF8.self)
            return (head, last)
        }
    }

    /// The first key and, for a dotted key path, the rest after the first ".": `("account", "bank.name")`.
    package static func split(_ keyPath: String) -> (first: String, rest: String?) {
        UTF8Bytes.withBytes(of: keyPath) { bytes in
            guard let dotIndex = bytes.firstIndex(of: dot) else { return (keyPath, nil) }
            let first = String(decoding: UnsafeBufferPointer(rebasing: bytes[..<dotIndex]), as: UTF8.self)
            let rest = String(decoding: UnsafeBufferPointer(rebasing: bytes[(dotIndex + 1)...]), as: UTF8.self)
            return (first, rest)
        }
    }
}

/// Runs byte loops over a string's UTF-8 in place (a native string's own storage), falling back to a copy for a
/// string that has none (a bridged one), so that key path checks and hashes cost a plain loop.
package enum UTF8Bytes {
    /// Calls `body` with the UTF-8 bytes of `string`.
    @inline(__always)
    package static func withBytes<Result>(
        of string: String, _ body: (UnsafeBufferPointer<UInt8>) -> Result
    ) -> Result {
        if let result = string.utf8.withContiguousStorageIfAvailable(body) { return result }
        return Array(string.utf8).withUnsafeBufferPointer(body)
    }
}
