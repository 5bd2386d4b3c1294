import GuardCore

/// The totals of a campaign: what ran, what the oracle checked and found, what the guard absorbed, and which
/// seed files were written.
public struct CampaignSummary: Sendable {
    /// A round whose oracle failed (or whose process crashed, trapped or hung).
    public struct FailedRound: Sendable {
        /// The round's index, from 0.
        public let round: Int
        /// The round's own seed (the one its seed file names).
        public let seed: UInt64
        /// The round's failure signature.
        public let signature: String
        /// The first violations, as `kind: message` lines.
        public internal(set) var messages: [String] = []
        /// Seconds the round took, as the campaign saw it (isolation included).
        public internal(set) var seconds = 0.0
        /// The seed file written for the round, if one was.
        public internal(set) var seedFile: String?
        /// Why no seed file was written when writing one failed (`writing it failed: ...`); `nil` when one was
        /// written or the campaign's limit of seed files was reached.
        public internal(set) var seedFileProblem: String?
        /// The standard error of the round's process, written beside the seed file, for a round whose process
        /// crashed, trapped or hung.
        public internal(set) var log: String?
    }

    /// One round, passed or failed: what reports list per round.
    public struct RoundRecord: Sendable {
        /// The round's index, from 0.
        public let round: Int
        /// The round's own seed.
        public let seed: UInt64
        /// Seconds the round took, as the campaign saw it (isolation included).
        public let seconds: Double
        /// Its failure signature; empty if the oracle held.
        public let signature: String

        /// Whether the oracle held.
        public var passed: Bool { signature.isEmpty }
    }

    /// The system under test's name.
    public let target: String
    /// The runner that ran the rounds.
    public let runner: RunnerChoice
    /// The campaign seed.
    public let seed: UInt64
    /// The first round's configuration (later rounds differ only in seed, and the last perhaps in length).
    public internal(set) var scenario: ScenarioConfiguration
    /// Rounds run.
    public internal(set) var rounds = 0
    /// Operations performed, handler actions included.
    public internal(set) var operations = 0
    /// Notifications received.
    public internal(set) var deliveries = 0
    /// Pauses injected (chaos runner).
    public internal(set) var faultsInjected = 0
    /// Schedule steps taken (controlled runner).
    public internal(set) var steps = 0
    /// Controlled rounds that hit their step limit.
    public internal(set) var stepLimitRounds = 0
    /// Seconds the whole campaign took (oracle checks included).
    public internal(set) var seconds = 0.0
    /// Seconds the workers ran.
    public internal(set) var workerSeconds = 0.0
    /// Every round's verdict merged (``Verdict/merge(_:)``): what the oracle checked and found over the campaign.
    public internal(set) var verdict = Verdict()
    /// Mistakes the guard absorbed, by kind (empty for targets without diagnostics).
    public internal(set) var preventedMisuses: [GuardDiagnostic.Kind: Int] = [:]
    /// Rounds whose oracle failed.
    public internal(set) var failures: [FailedRound] = []
    /// Paths of the seed files written.
    public internal(set) var seedFiles: [String] = []
    /// Failing rounds left without a seed file because the campaign's limit was reached.
    public internal(set) var unwrittenSeedFiles = 0
    /// Seed files that could not be written, as sentences.
    public internal(set) var writeErrors: [String] = []
    /// Rounds that deadlocked (their workers were abandoned, or their process stopped answering).
    public internal(set) var deadlockedRounds = 0
    /// Every round, in order.
    public internal(set) var roundRecords: [RoundRecord] = []
    /// Where the rounds ran (see ``RoundIsolation``): `nil` in this process, else what the child processes cost.
    public internal(set) var isolation: IsolationStatistics?
    /// Set when the campaign stopped because rounds could not be run at all (no child process could be
    /// started): why.
    public internal(set) var harnessError: String?
    /// Set when the campaign did not finish: stopped by a signal, or still running when a report of it was written
    /// (see ``interrupted(_:)``). Such a campaign never passed.
    public internal(set) var interruption: String?
    /// Rounds the campaign ran at once (``Campaign/Settings/jobs``).
    public internal(set) var jobs = 1
    /// Round 0's scenario run against ``Campaign/Settings/comparisonTarget``, if one was set and it ran: not
    /// counted in any other figure of the summary.
    public internal(set) var comparison: Verdict?
    /// Why the comparison run has no verdict, if it could not be run.
    public internal(set) var comparisonError: String?

    /// True if a round deadlocked.
    public var deadlocked: Bool { deadlockedRounds > 0 }

    init(target: String, seed: UInt64, scenario: ScenarioConfiguration, runner: RunnerChoice) {
        self.target = target
        self.runner = runner
        self.seed = seed
        self.scenario = scenario
    }

    /// Whether every round's oracle held (and every planned round ran).
    public var passed: Bool { failures.isEmpty && verdict.passed && harnessError == nil && interruption == nil }

    /// The summary of a campaign with `settings` that has not run a round yet, for a report written before it starts.
    public init(notStarted settings: Campaign.Settings) {
        self.init(target: settings.target, seed: settings.seed, scenario: settings.scenario, runner: settings.runner)
    }

    /// This summary, for a campaign that did not finish, saying why (`stopped by SIGTERM after 12 rounds`).
    public func interrupted(_ reason: String) -> CampaignSummary {
        var copy = self
        copy.interruption = reason
        return copy
    }

    /// Operations per second over the whole campaign.
    public var throughput: Double { seconds > 0 ? Double(operations) / seconds : 0 }

    /// Rounds (for the controlled runner: schedules) per second over the whole campaign.
    public var roundsPerSecond: Double { seconds > 0 ? Double(rounds) / seconds : 0 }

    /// Schedule steps per second over the whole campaign (controlled runner).
    public var stepsPerSecond: Double { seconds > 0 ? Double(steps) / seconds : 0 }

    mutating func add(_ verdict: Verdict) {
        rounds += 1
        operations += verdict.operations
        deliveries += verdict.deliveries
        faultsInjected += verdict.faultsInjected
        steps += verdict.steps
        if verdict.hitStepLimit { stepLimitRounds += 1 }
        workerSeconds += verdict.seconds
        self.verdict.merge(verdict)
        if verdict.violationCounts[.deadlock] != nil || verdict.abandoned { deadlockedRounds += 1 }
        for (kind, count) in verdict.preventedMisuses { preventedMisuses[kind, default: 0] += count }
    }
}
