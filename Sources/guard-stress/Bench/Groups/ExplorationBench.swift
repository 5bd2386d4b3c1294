import FaultInjector
import GuardCore

/// Group 9: exploration: executions per second of `guard-stress explore` against the guard, in this process (one
/// job) and in two child processes (two jobs), on one scenario of two workers with three operations each, stopped
/// after a fixed number of executions or when the exploration completes.
struct ExplorationBench: BenchGroup {
    let title = "9. Exploration"

    let figures = [
        FigureSpec(
            "explore.executions-per-second.1-job", .executionsPerSecond,
            "explore: executions per second in this process (guard, 2 workers x 3 operations, oracle included)"),
        FigureSpec(
            "explore.executions-per-second.2-jobs", .executionsPerSecond,
            baseline: "explore.executions-per-second.1-job",
            "the same exploration with --jobs 2 (child processes; ratio: the speed-up over one job)"),
    ]

    /// Observe with `.initial`, a change and an unobserve racing the observer's release, a change and an unobserve-all.
    static let scenarioText = """
        worker 0:
          observe c0 o0 k0 [initial,new]
          mutate o0 k0
          unobserve c0 o0 k0
        worker 1:
          release-observer c0
          mutate o0 k0
          unobserve-all c0
        """

    func measure(_ context: BenchContext) -> [String: Double] {
        guard let loaded = try? ScenarioFile.parse(Self.scenarioText, path: "bench.scenario") else {
            context.report("the exploration bench's scenario does not parse")
            return [:]
        }
        let executions = context.scale.pick(full: 1_500, quick: 200)
        return context.scale.sampler(fullRepetitions: 3, quickRepetitions: 1).medians { _, record in
            if context.wants("explore.executions-per-second.1-job", "explore.executions-per-second.2-jobs") {
                record("explore.executions-per-second.1-job", rate(loaded.scenario, executions: executions, jobs: 1, context))
            }
            if context.wants("explore.executions-per-second.2-jobs") {
                record("explore.executions-per-second.2-jobs", rate(loaded.scenario, executions: executions, jobs: 2, context))
            }
        }
    }

    /// Executions per second of exploring `scenario` against the guard for `executions` executions with `jobs` jobs.
    private func rate(_ scenario: Scenario, executions: Int, jobs: Int, _ context: BenchContext) -> Double {
        var settings = ExplorationSettings()
        settings.maxExecutions = executions
        settings.jobs = jobs
        if jobs > 1 { settings.childExecutable = ChildProcessSettings.thisExecutable }
        let target = GuardTarget(diagnostics: CountingSink(keepsEvents: false))
        let outcome = Explorer(scenario: scenario, target: target, settings: settings).explore()
        // Fewer executions are fine when they are all there are (the exploration completed); a failure or an
        // exploration cut short for another reason is not.
        var completed = false
        if case .complete = outcome.answer { completed = true }
        if outcome.failure != nil || (outcome.executions < executions && !completed) {
            context.report("the exploration bench did not run \(executions) passing executions: \(outcome.summary)")
        }
        return outcome.executionsPerSecond
    }
}
