import GuardCore

/// The oracle's verdict on one run: what it checked, how often, and every violation (the first few of each kind
/// in full, all of them counted).
public struct OracleReport: Sendable {
    /// How many individual checks of each rule were made.
    public private(set) var checks: [String: Int] = [:]
    /// Violations kept in full: the first ``keptPerKind`` of each kind.
    public private(set) var violations: [Violation] = []
    /// Every violation counted by kind.
    public private(set) var violationCounts: [Violation.Kind: Int] = [:]
    /// Misuse kinds that reached the runtime, with counts.
    public internal(set) var runtimeMisuses: [KVOMisuse.Kind: Int] = [:]
    /// Keys whose linearizability search hit its budget and was neither confirmed nor refuted.
    public internal(set) var inconclusiveKeys = 0

    /// How many violations of each kind are kept in full.
    public static let keptPerKind = 5

    /// An empty report.
    public init() {}

    /// Whether the oracle held.
    public var passed: Bool { violationCounts.isEmpty }

    /// All checks made.
    public var totalChecks: Int { checks.values.reduce(0, +) }

    /// All violations counted.
    public var totalViolations: Int { violationCounts.values.reduce(0, +) }

    /// A stable summary of what failed, to compare a replay with the original: violation kinds, and misuse kinds
    /// in parentheses, e.g. `missing-delivery+runtime-misuse(notRegistered,observerDeallocated)`. Empty if passed.
    public var signature: String {
        violationCounts.keys.sorted().map { kind in
            guard kind == .runtimeMisuse else { return kind.rawValue }
            let kinds = runtimeMisuses.keys.map(\.rawValue).sorted().joined(separator: ",")
            return "\(kind.rawValue)(\(kinds))"
        }.joined(separator: "+")
    }

    mutating func count(_ check: String, _ times: Int = 1) {
        checks[check, default: 0] += times
    }

    mutating func add(_ violation: Violation) {
        let seen = violationCounts[violation.kind, default: 0]
        violationCounts[violation.kind] = seen + 1
        if seen < Self.keptPerKind { violations.append(violation) }
    }

    /// Adds another report's checks and violations to this one.
    mutating func merge(_ other: OracleReport) {
        for (check, count) in other.checks { checks[check, default: 0] += count }
        for violation in other.violations where violationCounts[violation.kind, default: 0] < Self.keptPerKind {
            violations.append(violation)
        }
        for (kind, count) in other.violationCounts { violationCounts[kind, default: 0] += count }
        for (kind, count) in other.runtimeMisuses { runtimeMisuses[kind, default: 0] += count }
        inconclusiveKeys += other.inconclusiveKeys
    }
}
