/// The shape of string key paths: `key` or `key.key.key`, no empty component.
package enum KeyPathSyntax {
    /// Whether `keyPath` is non-empty and has no empty component (`""`, `"a."`, `"a..b"` are not well formed).
    package static func isWellFormed(_ keyPath: String) -> Bool {
        !keyPath.isEmpty && !keyPath.split(separator: ".", omittingEmptySubsequences: false).contains { $0.isEmpty }
    }
}
