import Foundation
import GuardCore

/// A stress campaign: rounds of fresh scenarios against one target until an operation budget or a time budget is
/// used up. Each round is run by the chosen runner, then judged by the ``Oracle``; every failing round is written
/// as a seed file.
///
/// With the controlled runner each round is one schedule; PCT's expected step count starts from an estimate and
/// follows the longest run seen so far (as shuttle's PCT does), and each seed file records the value its round used.
public struct Campaign: Sendable {
    /// What to run and for how long.
    public struct Settings: Sendable {
        /// The campaign seed; round `r` uses its own seed derived from it.
        public var seed: UInt64 = 1
        /// The scenario of every round (its seed is replaced per round).
        public var scenario = ScenarioConfiguration()
        /// Stop after this many operations in all (`nil`: no limit).
        public var operationBudget: Int? = nil
        /// Stop starting rounds after this many seconds.
        public var duration: Double = 50
        /// The system under test's name (see ``TargetCatalog``).
        public var target = "guard"
        /// Which runner runs each round.
        public var runner = RunnerChoice.chaos
        /// Where seed files of failing rounds go.
        public var outputDirectory = "stress-seeds"
        /// Stop at the first failing round.
        public var stopAtFirstFailure = false
        /// Write seed files for at most this many failing rounds (a long campaign against a broken target would
        /// otherwise fill the disk with near-identical files). A failure with a signature not seen before in the
        /// campaign is always written; repeats beyond the limit are only counted.
        public var maximumSeedFiles = 10

        /// The defaults: 64 queues × 1,000 operations per round, 50 seconds, the guard.
        public init() {}

        /// The scenario of round `round`, after `operationsDone` operations: its own seed, and fewer operations per
        /// worker when the operation budget is nearly used up.
        public func scenario(forRound round: Int, operationsDone: Int = 0) -> Scenario {
            var configuration = scenario
            if let operationBudget {
                let remaining = max(0, operationBudget - operationsDone)
                let perWorker = (remaining + configuration.workers - 1) / configuration.workers
                configuration.operationsPerWorker = min(configuration.operationsPerWorker, max(1, perWorker))
            }
            return Scenario(
                configuration: configuration, seed: StreamSeeds.seed(run: seed, purpose: .rounds, index: round))
        }
    }

    /// Where a campaign stands, after each round.
    public struct Progress: Sendable {
        /// Rounds finished.
        public let rounds: Int
        /// Operations performed so far.
        public let operations: Int
        /// Notifications received so far.
        public let deliveries: Int
        /// Oracle violations so far.
        public let violations: Int
        /// Seconds since the campaign started.
        public let elapsed: Double
    }

    /// What this campaign runs.
    public let settings: Settings

    /// Creates a campaign.
    public init(settings: Settings) {
        self.settings = settings
    }

    /// Runs the campaign, calling `progress` after every round.
    public func run(progress: (Progress) -> Void = { _ in }) -> CampaignSummary {
        let diagnostics = CountingSink(keepsEvents: false)
        guard let target = TargetCatalog.make(settings.target, diagnostics: diagnostics) else {
            preconditionFailure("unknown target \(settings.target); validate it with TargetCatalog.names first")
        }
        var summary = CampaignSummary(
            target: settings.target, seed: settings.seed, scenario: settings.scenario, runner: settings.runner)
        let start = MonotonicClock.now
        var round = 0
        var learnedSteps: Int?
        while true {
            let elapsed = Double(MonotonicClock.now - start) / 1e9
            if round > 0, elapsed >= settings.duration { break }
            if let budget = settings.operationBudget, summary.operations >= budget { break }
            let scenario = settings.scenario(forRound: round, operationsDone: summary.operations)
            let roundSeed = scenario.seed
            if round == 0 { summary.scenario = scenario.configuration }
            let result = runner(learnedSteps: learnedSteps).runAndEvaluate(scenario, against: target)
            if let controlled = result.recording.controlled {
                learnedSteps = max(learnedSteps ?? 0, controlled.choiceSteps)
            }
            summary.add(result)
            if !result.passed {
                summary.failures.append(
                    CampaignSummary.FailedRound(round: round, seed: roundSeed, signature: result.report.signature))
                keepSeedFile(of: result, in: &summary)
            }
            round += 1
            progress(
                Progress(
                    rounds: round, operations: summary.operations, deliveries: summary.deliveries,
                    violations: summary.report.totalViolations, elapsed: Double(MonotonicClock.now - start) / 1e9))
            if result.abandoned || (!result.passed && settings.stopAtFirstFailure) { break }
        }
        summary.seconds = Double(MonotonicClock.now - start) / 1e9
        summary.preventedMisuses = diagnostics.counts
        return summary
    }

    /// The runner of a round: PCT without a fixed expected step count uses the most counted steps a round took so
    /// far (the first round uses an estimate from the scenario size).
    private func runner(learnedSteps: Int?) -> any ScenarioRunner {
        guard case .controlled(var controlled) = settings.runner else { return settings.runner.makeRunner() }
        if controlled.expectedSteps == nil, let learnedSteps, learnedSteps > 0 {
            controlled.expectedSteps = learnedSteps
        }
        return RunnerChoice.controlled(controlled).makeRunner()
    }

    /// Writes the seed file of a failing round, unless its failure is a repeat and the campaign already wrote as
    /// many as it may.
    private func keepSeedFile(of result: RunResult, in summary: inout CampaignSummary) {
        let isNewFailure = !summary.failures.dropLast().contains { $0.signature == result.report.signature }
        guard isNewFailure || summary.seedFiles.count < settings.maximumSeedFiles else {
            summary.unwrittenSeedFiles += 1
            return
        }
        do {
            let file = SeedFile(result: result, toolVersion: ToolVersion.current)
            summary.seedFiles.append(try SeedFileStore.write(file, into: settings.outputDirectory))
        } catch {
            summary.writeErrors.append(
                "could not write a seed file into \(settings.outputDirectory): \(error.localizedDescription)")
        }
    }
}
