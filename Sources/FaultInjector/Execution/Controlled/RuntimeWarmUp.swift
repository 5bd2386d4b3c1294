import GuardCore

/// Fills GuardCore's process-wide caches (per-class tables, key names, computed keys) before the first controlled
/// run, by running a small drawn scenario against the guard and the raw runtime on the calling thread.
///
/// A cold cache takes extra locks on first use, so without this the first controlled run in a process would take
/// other schedule steps than the same run later in the process (or in a replaying process). Worker threads are new
/// for every run, so per-thread caches start empty every time.
enum RuntimeWarmUp {
    /// Runs the warm-up once per process. Call inside ``RunEnvironment/exclusively(_:)`` (misuse is reported, not
    /// trapped) before taking the run's misuse baseline.
    static func ensure() {
        _ = done
    }

    private static let done: Void = {
        var configuration = ScenarioConfiguration()
        configuration.workers = 1
        configuration.operationsPerWorker = 400
        configuration.objects = 2
        configuration.controllers = 2
        configuration.weakHoldingEvery = 2
        configuration.faults = .none
        let scenario = Scenario(configuration: configuration, seed: 0x5EED)
        let targets: [any SystemUnderTest] = [GuardTarget(diagnostics: CountingSink(keepsEvents: false)), RawRuntimeTarget()]
        let previous = WorkerContext.current
        for target in targets {
            let world = StressWorld(configuration: configuration, target: target, clock: .logical())
            let worker = WorkerContext(index: 0, faults: FaultInjection(profile: .none, seed: 0, worker: 0))
            WorkerContext.setCurrent(worker)
            for (index, operation) in scenario.operations[0].enumerated() {
                world.perform(operation, index: index, worker: worker)
            }
            WorkerContext.setCurrent(previous)
            world.releaseEverything()
        }
    }()
}
