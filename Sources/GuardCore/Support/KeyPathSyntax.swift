/// The shape of string key paths: `key` or `key.key.key`, no empty component.
///
/// Key paths are split at the "." *scalar* (byte 0x2E), everywhere in GuardCore. Splitting at Characters would
/// disagree for a "." followed by a combining mark (`"a.\u{301}"` is one Character after `a`), so dottedness and
/// splitting could disagree; bytes cannot.
package enum KeyPathSyntax {
    private static let dot = UInt8(ascii: ".")

    /// Whether `keyPath` is non-empty and has no empty component (`""`, `"a."`, `"a..b"` are not well formed).
    package static func isWellFormed(_ keyPath: String) -> Bool {
        var componentIsEmpty = true
        for byte in keyPath.utf8 {
            if byte == dot {
                if componentIsEmpty { return false }
                componentIsEmpty = true
            } else {
                componentIsEmpty = false
            }
        }
        return !componentIsEmpty
    }

    /// Whether `keyPath` has more than one key.
    package static func isDotted(_ keyPath: String) -> Bool {
        keyPath.utf8.contains(dot)
    }

    /// `account` for `account.balance`; the whole key path when it has one key.
    package static func firstKey(of keyPath: String) -> String {
        split(keyPath).first
    }

    /// The first key and, for a dotted key path, the rest after the first ".": `("account", "bank.name")`.
    package static func split(_ keyPath: String) -> (first: String, rest: String?) {
        let bytes = keyPath.utf8
        guard let dotIndex = bytes.firstIndex(of: dot) else { return (keyPath, nil) }
        let first = String(decoding: bytes[..<dotIndex], as: UTF8.self)
        let rest = String(decoding: bytes[bytes.index(after: dotIndex)...], as: UTF8.self)
        return (first, rest)
    }
}
