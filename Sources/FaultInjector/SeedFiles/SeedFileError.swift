/// Why a seed file could not be used. Every case reads as one sentence for a person.
public enum SeedFileError: Error, Sendable, Equatable, CustomStringConvertible {
    /// There is no file at the path (or it cannot be read).
    case unreadable(path: String, reason: String)
    /// The file is empty.
    case empty(path: String)
    /// The JSON stops before it is complete.
    case truncated(path: String)
    /// The file is not JSON at all.
    case notJSON(path: String, reason: String)
    /// The JSON is not an object (`found`: `null`, `a list`, `a string ("…")`, ...).
    case notAnObject(path: String, found: String)
    /// Arrays and objects nest deeper than `limit`, more than a JSON reader follows (a seed file needs a few levels).
    case nestedTooDeeply(path: String, limit: Int)
    /// The JSON is not a KVOGuard seed file.
    case wrongFormat(path: String, found: String)
    /// The file was written by an incompatible version of the format (`supported` is the newest this build
    /// reads; it reads every version from ``SeedFile/readableVersions``' lower bound up to it).
    case unsupportedVersion(path: String, found: Int, supported: Int)
    /// A field is missing or has the wrong type.
    case malformed(path: String, reason: String)
    /// The fields are all there but do not make sense together.
    case nonsensical(String)
    /// The target the file names is unknown to this build.
    case unknownTarget(String)
    /// The runner the file names is unknown to this build.
    case unknownRunner(String)
    /// The scheduling strategy the file names is unknown to this build.
    case unknownStrategy(String)

    /// One sentence saying what is wrong.
    public var description: String {
        switch self {
        case .unreadable(let path, let reason): return "cannot read seed file \(path): \(reason)"
        case .empty(let path): return "\(path) is empty, not a seed file"
        case .truncated(let path): return "\(path) is truncated: its JSON ends before the seed file is complete"
        case .notJSON(let path, let reason): return "\(path) is not JSON: \(reason)"
        case .notAnObject(let path, let found): return "\(path) is not a seed file: expected a JSON object, found \(found)"
        case .nestedTooDeeply(let path, let limit):
            return "\(path) is not a seed file: its arrays and objects are nested too deeply (more than \(limit) levels)"
        case .wrongFormat(let path, let found):
            return "\(path) is not a KVOGuard seed file (format \"\(found)\", expected \"\(SeedFile.formatName)\")"
        case .unsupportedVersion(let path, let found, let supported):
            let oldest = SeedFile.readableVersions.lowerBound
            let versions = oldest == supported ? "version \(supported)" : "versions \(oldest) to \(supported)"
            return "\(path) is seed file version \(found); this guard-stress reads \(versions)"
        case .malformed(let path, let reason): return "\(path) is not a valid seed file: \(reason)"
        case .nonsensical(let reason): return "the seed file makes no sense: \(reason)"
        case .unknownTarget(let name):
            if let reason = TargetCatalog.unavailableReason(for: name) { return "the seed file names target \"\(name)\": \(reason)" }
            return "the seed file names target \"\(name)\", which this guard-stress does not know (known: \(TargetCatalog.names.joined(separator: ", ")))"
        case .unknownRunner(let name):
            return "the seed file names runner \"\(name)\"; this guard-stress knows "
                + RunnerChoice.names.map { "\"\($0)\"" }.joined(separator: " and ")
        case .unknownStrategy(let name):
            return "the seed file names strategy \"\(name)\"; this guard-stress knows "
                + StrategyChoice.names.map { "\"\($0)\"" }.joined(separator: " and ")
        }
    }
}
