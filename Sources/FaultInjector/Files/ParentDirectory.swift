/// The directory a path names its file in, worked out on the text alone.
///
/// Foundation's `NSString.deletingLastPathComponent` traps on a one-character relative name (`y`, `y/`) on Linux,
/// so guard-stress, which takes output names from the command line, does not use it.
public enum ParentDirectory {
    /// The directory of `path`: `a/b` for `a/b/c`, `/` for `/c`, `.` for a bare name like `c` (trailing slashes
    /// are ignored: `a/b/` is in `a`).
    public static func of(_ path: String) -> String {
        var text = Substring(path)
        while text.count > 1, text.hasSuffix("/") { text = text.dropLast() }
        guard let slash = text.lastIndex(of: "/") else { return "." }
        var parent = text[..<slash]
        while parent.count > 1, parent.hasSuffix("/") { parent = parent.dropLast() }
        return parent.isEmpty ? "/" : String(parent)
    }
}
