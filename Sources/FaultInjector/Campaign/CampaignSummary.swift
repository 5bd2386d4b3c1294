import GuardCore

/// The totals of a campaign: what ran, what the oracle checked and found, what the guard absorbed, and which
/// seed files were written.
public struct CampaignSummary: Sendable {
    /// A round whose oracle failed.
    public struct FailedRound: Sendable {
        public let round: Int
        public let seed: UInt64
        public let signature: String
    }

    public let target: String
    public let seed: UInt64
    /// The first round's configuration (later rounds differ only in seed, and the last perhaps in length).
    public internal(set) var scenario: ScenarioConfiguration
    public internal(set) var rounds = 0
    public internal(set) var operations = 0
    public internal(set) var deliveries = 0
    public internal(set) var faultsInjected = 0
    /// Seconds the whole campaign took (oracle checks included).
    public internal(set) var seconds = 0.0
    /// Seconds the workers ran.
    public internal(set) var workerSeconds = 0.0
    /// All rounds' oracle reports merged.
    public internal(set) var report = OracleReport()
    /// Mistakes the guard absorbed, by kind (empty for targets without diagnostics).
    public internal(set) var preventedMisuses: [GuardDiagnostic.Kind: Int] = [:]
    public internal(set) var failures: [FailedRound] = []
    public internal(set) var seedFiles: [String] = []
    public internal(set) var writeErrors: [String] = []
    /// True if a round deadlocked (its workers were abandoned).
    public internal(set) var deadlocked = false

    init(target: String, seed: UInt64, scenario: ScenarioConfiguration) {
        self.target = target
        self.seed = seed
        self.scenario = scenario
    }

    /// Whether every round's oracle held.
    public var passed: Bool { failures.isEmpty && report.passed }

    /// Operations per second over the whole campaign.
    public var throughput: Double { seconds > 0 ? Double(operations) / seconds : 0 }

    mutating func add(_ result: RunResult) {
        rounds += 1
        operations += result.operationsPerformed
        deliveries += result.deliveries
        faultsInjected += result.faultsInjected
        workerSeconds += result.seconds
        report.merge(result.report)
        deadlocked = deadlocked || result.abandoned
    }
}
