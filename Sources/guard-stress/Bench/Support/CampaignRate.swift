import FaultInjector
import Foundation

/// Whole campaigns as `guard-stress run` runs them (rounds in child processes of this program, seed files written
/// before each round into a scratch directory), with one job and with one job per available core: the harness's
/// rate as a user gets it, and how much the cores add.
enum CampaignRate {
    static let chaosOneJob = "harness.campaign.ops-per-second.1-job"
    static let chaosAllCores = "harness.campaign.ops-per-second.all-cores"
    static let controlledOneJob = "harness.campaign.schedules-per-second.1-job"
    static let controlledAllCores = "harness.campaign.schedules-per-second.all-cores"

    /// The wanted campaign figures, medians of a few campaigns each (the one-job and all-core campaigns alternate).
    static func measure(_ context: BenchContext) -> [String: Double] {
        let cores = AvailableCores.count
        let sampler = context.scale.sampler(fullRepetitions: 3, quickRepetitions: 1)
        var chaos = ScenarioConfiguration()
        chaos.workers = context.scale.pick(full: 64, quick: 16)
        chaos.operationsPerWorker = context.scale.pick(full: 1_000, quick: 250)
        let chaosRounds = context.scale.pick(full: 3, quick: 2)
        let controlledRounds = context.scale.pick(full: 300, quick: 60)
        var values = context.medians(
            ifWanted: [
                (chaosOneJob, { rate(chaos, .chaos, rounds: chaosRounds, jobs: 1, context).operations }),
                (chaosAllCores, { rate(chaos, .chaos, rounds: chaosRounds * cores, jobs: cores, context).operations }),
            ], sampler: sampler)
        let controlled = RunnerChoice.controlled(ControlledRunner.Settings())
        values.merge(
            context.medians(
                ifWanted: [
                    (controlledOneJob, { rate(.controlledDefault, controlled, rounds: controlledRounds, jobs: 1, context).rounds }),
                    (controlledAllCores, {
                        rate(.controlledDefault, controlled, rounds: controlledRounds * cores, jobs: cores, context).rounds
                    }),
                ], sampler: sampler)
        ) { _, new in new }
        return values
    }

    /// Runs a campaign of `rounds` rounds of `configuration` on `jobs` jobs; its operations and rounds per second
    /// (0 after reporting a problem when it could not run or its oracle was violated).
    private static func rate(
        _ configuration: ScenarioConfiguration, _ runner: RunnerChoice, rounds: Int, jobs: Int, _ context: BenchContext
    ) -> (operations: Double, rounds: Double) {
        var settings = Campaign.Settings()
        settings.seed = 0xB5E4_CA11
        settings.scenario = configuration
        settings.runner = runner
        settings.operationBudget = rounds * configuration.workers * configuration.operationsPerWorker
        settings.duration = ParsedArguments.maximumSeconds
        settings.jobs = jobs  // in child processes: guard-stress serves rounds (RoundIsolation.automatic)
        settings.outputDirectory = (NSTemporaryDirectory() as NSString).appendingPathComponent(
            "guard-stress-bench-\(ProcessInfo.processInfo.processIdentifier)-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(atPath: settings.outputDirectory) }
        let summary: CampaignSummary
        do {
            summary = try Campaign(settings: settings).run()
        } catch {
            context.report("the bench campaign could not be set up: \(error)")
            return (0, 0)
        }
        if let problem = summary.harnessError ?? (summary.passed ? nil : "its oracle was violated: "
            + Set(summary.failures.map(\.signature)).sorted().joined(separator: "; "))
        {
            context.report("a bench campaign (\(runner.name), \(jobs) jobs) failed: \(problem)")
            return (0, 0)
        }
        return (summary.throughput, summary.roundsPerSecond)
    }
}
