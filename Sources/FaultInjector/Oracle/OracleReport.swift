import GuardCore

/// The oracle's verdict on one run: what it checked, how often, and every violation (the first few of each kind
/// in full, all of them counted). It is `Codable` so a round run in a child process can send its verdict back.
public struct OracleReport: Sendable, Codable {
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
    /// The signals that ended processes under test (`SIGSEGV`, `SIGILL`, ...; `exit 3` for a process that exited
    /// without answering; the sanitizer's name, `ThreadSanitizer`, for one a sanitizer ended), with counts: filled
    /// only for rounds isolated in child processes.
    public internal(set) var crashSignals: [String: Int] = [:]

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

    /// A stable summary of what failed, to compare a replay with the original: violation kinds, misuse kinds in
    /// parentheses, and a crash's signal, e.g. `missing-delivery+runtime-misuse(notRegistered,observerDeallocated)`
    /// or `crash(SIGSEGV)`. Empty if passed.
    public var signature: String {
        violationCounts.keys.sorted().map { kind in
            switch kind {
            case .runtimeMisuse:
                let kinds = runtimeMisuses.keys.map(\.rawValue).sorted().joined(separator: ",")
                return "\(kind.rawValue)(\(kinds))"
            case .crash:
                let signals = crashSignals.keys.filter { !Violation.trapSignals.contains($0) }.sorted()
                return signals.isEmpty ? kind.rawValue : "\(kind.rawValue)(\(signals.joined(separator: ",")))"
            default:
                return kind.rawValue
            }
        }.joined(separator: "+")
    }

    mutating func count(_ check: String, _ times: Int = 1) {
        checks[check, default: 0] += times
        // The oracle moving is the round's progress too (a round server's heartbeat).
        RoundProgress.advance()
    }

    mutating func add(_ violation: Violation) {
        let seen = violationCounts[violation.kind, default: 0]
        violationCounts[violation.kind] = seen + 1
        if seen < Self.keptPerKind { violations.append(violation) }
    }

    /// Adds another report's checks and violations to this one.
    package mutating func merge(_ other: OracleReport) {
        for (check, count) in other.checks { checks[check, default: 0] += count }
        for violation in other.violations where violationCounts[violation.kind, default: 0] < Self.keptPerKind {
            violations.append(violation)
        }
        for (kind, count) in other.violationCounts { violationCounts[kind, default: 0] += count }
        for (kind, count) in other.runtimeMisuses { runtimeMisuses[kind, default: 0] += count }
        for (signal, count) in other.crashSignals { crashSignals[signal, default: 0] += count }
        inconclusiveKeys += other.inconclusiveKeys
    }
}
