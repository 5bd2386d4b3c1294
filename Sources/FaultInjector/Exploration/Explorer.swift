import GuardCore

/// Explores every interleaving of a scenario against a system under test, each class of equivalent interleavings
/// once, and answers: complete with no violation (a proof for this scenario), a failing interleaving, or "not a
/// proof" and why.
///
/// Each execution is a full ``ControlledRunner`` run that follows a prefix of decisions, then a default rule, while
/// the scheduler records what every step touched: the announced locks it took or found held, the lock-free words
/// GuardCore announces (``SharedWord``) and the lifetimes it held. Two steps are dependent when they touch a common
/// object and one of them writes it; interleavings that differ only in the order of independent steps form a class,
/// and one execution of each class suffices (dynamic partial-order reduction: ``ExplorationTree``). The harness's own
/// shared state adds no dependency: ids and values are drawn per worker, and the oracle judges each history with its
/// times renumbered in the canonical order of its class (``CanonicalTimes``), so every execution of a class records
/// the same history, which the explorer checks whenever it meets a class twice.
///
/// Every re-execution checks that it repeats its prefix (the same decisions, the same runnable workers, the same
/// steps touching the same objects); a divergence, a run past its step limit or a worker blocked outside the
/// scheduler's control ends the exploration with "not a proof".
public struct Explorer: Sendable {
    /// The scenario explored.
    public let scenario: Scenario
    /// The system under test.
    public let target: any SystemUnderTest
    /// How to search.
    public let settings: ExplorationSettings

    /// An explorer of `scenario` against `target`.
    public init(scenario: Scenario, target: any SystemUnderTest, settings: ExplorationSettings = ExplorationSettings()) {
        self.scenario = scenario
        self.target = target
        self.settings = settings
    }

    /// Explores until the answer is known. `progress` hears the running counts now and then (every few hundred
    /// executions).
    public func explore(progress: @escaping @Sendable (ExplorationProgress) -> Void = { _ in }) -> ExplorationOutcome {
        var search = ExplorationSearch(explorer: self, progress: progress)
        return run(&search)
    }

    /// Explores like ``explore(progress:)``, and also says the oracle's signature of each class met (empty where it
    /// held), in no particular order: what the shrinker counts failing and passing classes by.
    package func exploreClassSignatures() -> (outcome: ExplorationOutcome, signatures: [String]) {
        var search = ExplorationSearch(explorer: self, progress: { _ in })
        let outcome = run(&search)
        return (outcome, search.verdicts.values.map(\.signature))
    }

    /// Runs `search` in child processes when the settings ask for more than one job and name the executable, else
    /// here.
    private func run(_ search: inout ExplorationSearch) -> ExplorationOutcome {
        if settings.jobs > 1, let executable = settings.childExecutable {
            return search.runInChildren(executable: executable)
        }
        return search.run { request in execute(request) }
    }

    /// Runs the execution `request` asks for, in this process.
    func execute(_ request: ExecutionRequest) -> ExecutionReport {
        var runner = ControlledRunner(settings: controlledSettings)
        runner.exploring = ExplorationOptions(request: request, omittedWords: settings.omittedWords)
        return ExecutionReport(recording: runner.run(scenario, against: target))
    }

    /// Explores, in this process, the rest of the subtree `request`'s branch leads to (a child process's share of
    /// `explore --jobs N`), starting from `first`, the report of the branch's first execution, if given.
    func exploreSubtree(_ request: ExecutionRequest, from first: ExecutionReport?, limit: Int?) -> SubtreeReport {
        var search = ExplorationSearch(explorer: self, subtree: request, progress: { _ in })
        return search.exploreSubtree(from: first, limit: limit)
    }

    /// The controlled runner's settings for explored runs and for reproducing a failure.
    var controlledSettings: ControlledRunner.Settings {
        var controlled = ControlledRunner.Settings()
        controlled.stepLimit = settings.stepLimit
        controlled.blockedTimeout = settings.blockedTimeout
        return controlled
    }

    /// Runs `failure`'s interleaving as an ordinary controlled run (shared counters, the run clock's own times: what
    /// a seed file records), following its canonical schedule, and judges it. The result records the schedule taken,
    /// so a seed file made from it replays exactly.
    public func reproduce(_ failure: ExploredFailure) -> RunResult {
        var runner = ControlledRunner(settings: controlledSettings)
        let schedule = failure.canonicalSchedule
        runner.customStrategy = { _ in FollowingStrategy(workers: schedule) }
        return runner.runAndEvaluate(scenario, against: target)
    }
}

/// Running counts of an exploration.
public struct ExplorationProgress: Sendable {
    /// Executions run so far.
    public let executions: Int
    /// Distinct classes explored to the end so far.
    public let classes: Int
    /// Seconds so far.
    public let seconds: Double
}

/// Chooses the given worker at each step while it can run; afterwards (or when it cannot), the worker that reached
/// the decision if it can run, else the lowest.
struct FollowingStrategy: SchedulingStrategy {
    let workers: [Int]

    mutating func choose(_ decision: SchedulingDecision) -> Int {
        if decision.step < workers.count, decision.runnable.contains(workers[decision.step]) {
            return workers[decision.step]
        }
        if let current = decision.current, decision.runnable.contains(current) { return current }
        return decision.runnable[0]
    }
}
