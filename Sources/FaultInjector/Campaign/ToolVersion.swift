/// The version of KVOGuard's stress tooling, written into every seed file.
public enum ToolVersion {
    public static let current = "0.1.0"
}
