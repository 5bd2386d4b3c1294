/// The version of KVOGuard's stress tooling, written into every seed file.
public enum ToolVersion {
    /// This build's version.
    public static let current = "0.2.0"
}
