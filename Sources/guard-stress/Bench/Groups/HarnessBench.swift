import FaultInjector
import GuardCore

/// Group 8: the stress harness itself: chaos-runner operations per second against the guard, with the full
/// oracle, beside the workers' own rate (the same runs, the oracle's time left out), and controlled-runner
/// schedules per second (PCT, depth 3, its default scenario, oracle included); then whole campaigns as
/// `guard-stress run` runs them (rounds in child processes), with one job and with one job per available core.
struct HarnessBench: BenchGroup {
    let title = "8. The harness"

    let figures = [
        FigureSpec(
            "harness.chaos.ops-per-second-workers-only", .operationsPerSecond,
            "chaos runner operations per second while the workers run (default scenario, faults on)"),
        FigureSpec(
            "harness.chaos.ops-per-second", .operationsPerSecond,
            baseline: "harness.chaos.ops-per-second-workers-only",
            "the same runs end to end: set-up, workers, teardown and the full oracle"),
        FigureSpec(
            "harness.controlled.schedules-per-second", .schedulesPerSecond,
            "controlled runner, PCT depth 3, default controlled scenario, each schedule judged by the oracle"),
        FigureSpec(
            CampaignRate.chaosOneJob, .operationsPerSecond,
            "a chaos campaign against the guard as guard-stress run runs it (rounds in child processes, oracle "
                + "included), --jobs 1"),
        FigureSpec(
            CampaignRate.chaosAllCores, .operationsPerSecond, baseline: CampaignRate.chaosOneJob,
            "the same campaign with --jobs \(AvailableCores.count) (every available core)"),
        FigureSpec(
            CampaignRate.controlledOneJob, .schedulesPerSecond,
            "a controlled (PCT) campaign against the guard, rounds in child processes, --jobs 1"),
        FigureSpec(
            CampaignRate.controlledAllCores, .schedulesPerSecond, baseline: CampaignRate.controlledOneJob,
            "the same campaign with --jobs \(AvailableCores.count) (every available core)"),
    ]

    func measure(_ context: BenchContext) -> [String: Double] {
        var values = CampaignRate.measure(context)
        if context.wants(
            "harness.chaos.ops-per-second-workers-only", "harness.chaos.ops-per-second",
            "harness.controlled.schedules-per-second")
        {
            values.merge(runnerFigures(context)) { _, new in new }
        }
        return values
    }

    /// The runners' own rates, in this process.
    private func runnerFigures(_ context: BenchContext) -> [String: Double] {
        var configuration = ScenarioConfiguration()
        configuration.workers = context.scale.pick(full: 64, quick: 16)
        configuration.operationsPerWorker = context.scale.pick(full: 1_000, quick: 250)
        return context.scale.sampler(fullRepetitions: 5, quickRepetitions: 3).medians { round, record in
            let scenario = Scenario(configuration: configuration, seed: 0xB5E4_C400 &+ UInt64(round))
            let target = GuardTarget(diagnostics: CountingSink(keepsEvents: false))
            var result: RunResult?
            let elapsed = Stopwatch.nanoseconds { result = ChaosRunner().runAndEvaluate(scenario, against: target) }
            guard let result else { return }
            if !result.passed {
                context.report(
                    "the chaos runner's oracle was violated in bench round \(round) (seed \(scenario.seed)): "
                        + result.verdict.violationCounts.map { "\($0.key.rawValue) \($0.value)" }.sorted().joined(separator: ", "))
            }
            let operations = Double(result.verdict.operations)
            record("harness.chaos.ops-per-second-workers-only", operations / max(result.verdict.seconds, 1e-9))
            record("harness.chaos.ops-per-second", operations / max(elapsed / 1e9, 1e-9))
            record("harness.controlled.schedules-per-second", controlledSchedulesPerSecond(round: round, context))
        }
    }

    /// Runs controlled schedules for a fixed number of schedules and returns the rate.
    private func controlledSchedulesPerSecond(round: Int, _ context: BenchContext) -> Double {
        let schedules = context.scale.pick(full: 40, quick: 10)
        let target = GuardTarget(diagnostics: CountingSink(keepsEvents: false))
        let runner = ControlledRunner()
        var failures = 0
        let elapsed = Stopwatch.nanoseconds {
            for index in 0..<schedules {
                let scenario = Scenario(
                    configuration: .controlledDefault, seed: 0xC0_17E0 &+ UInt64(round * schedules + index))
                if !runner.runAndEvaluate(scenario, against: target).passed { failures += 1 }
            }
        }
        if failures > 0 {
            context.report("the controlled runner's oracle was violated in \(failures) bench schedules (round \(round))")
        }
        return Double(schedules) / max(elapsed / 1e9, 1e-9)
    }
}
