import GuardCore

/// Explores every scenario of a ``ProofSuite`` against a target named in the catalog, in this process or, with
/// ``ExplorationSettings/jobs`` above 1, a whole scenario per child process at once. Stops handing out scenarios at
/// the first that is not complete (the ones already running finish).
public struct ProofExecution: Sendable {
    /// The suite.
    public let suite: ProofSuite
    /// The target's name (``TargetCatalog``).
    public let targetName: String
    /// How each scenario is explored.
    public let settings: ExplorationSettings

    /// A run of `suite` against `targetName`.
    public init(suite: ProofSuite, targetName: String, settings: ExplorationSettings) {
        self.suite = suite
        self.targetName = targetName
        self.settings = settings
    }

    /// Explores the suite; `progress` hears the number of scenarios done (and the total) after each.
    public func run(progress: (_ done: Int, _ total: Int) -> Void = { _, _ in }) -> ProofOutcome {
        let start = MonotonicClock.now
        let scenarios = suite.scenarios
        var outcomes: [ExplorationOutcome?]
        if settings.jobs > 1, let executable = settings.childExecutable {
            outcomes = inChildren(scenarios, executable: executable, progress: progress)
        } else {
            outcomes = inProcess(scenarios, progress: progress)
        }
        // Up to the first scenario not explored (or not complete): the outcome of a prefix of the suite.
        var kept: [ExplorationOutcome] = []
        for outcome in outcomes {
            guard let outcome else { break }
            kept.append(outcome)
            if !Self.isComplete(outcome) { break }
        }
        return ProofOutcome(
            suite: suite, scenarios: kept.count, outcomes: kept, seconds: Double(MonotonicClock.now - start) / 1e9)
    }

    private func inProcess(_ scenarios: [Scenario], progress: (Int, Int) -> Void) -> [ExplorationOutcome?] {
        var outcomes: [ExplorationOutcome?] = Array(repeating: nil, count: scenarios.count)
        for (index, scenario) in scenarios.enumerated() {
            guard let target = TargetCatalog.make(targetName, diagnostics: CountingSink(keepsEvents: false)) else { break }
            let outcome = Explorer(scenario: scenario, target: target, settings: settings).explore()
            outcomes[index] = outcome
            progress(index + 1, scenarios.count)
            if !Self.isComplete(outcome) { break }
        }
        return outcomes
    }

    private func inChildren(
        _ scenarios: [Scenario], executable: String, progress: (Int, Int) -> Void
    ) -> [ExplorationOutcome?] {
        var outcomes: [ExplorationOutcome?] = Array(repeating: nil, count: scenarios.count)
        guard let workers = try? ExplorationWorkers(
            count: settings.jobs, executable: executable, arguments: [ExplorationSearch.serverCommand])
        else { return inProcess(scenarios, progress: progress) }
        defer { workers.stop() }
        var scenarioSettings = settings
        scenarioSettings.jobs = 1
        var next = 0
        var running = 0
        var done = 0
        var stopped = false
        while true {
            while !stopped, running < settings.jobs, next < scenarios.count {
                var job = ExplorationJob()
                job.scenario = ScenarioMessage(scenarios[next])
                job.target = targetName
                job.settings = scenarioSettings
                job.exploresWhole = true
                workers.submit(job, id: next)
                next += 1
                running += 1
            }
            guard running > 0 else { break }
            let (index, answer) = workers.next()
            running -= 1
            done += 1
            progress(done, scenarios.count)
            switch answer {
            case .success(let answer) where answer.outcome != nil:
                outcomes[index] = answer.outcome
                if !Self.isComplete(answer.outcome!) { stopped = true }
            case .success, .failure:
                stopped = true
            }
        }
        return outcomes
    }

    /// Whether `outcome` is complete (or complete up to its bound).
    static func isComplete(_ outcome: ExplorationOutcome) -> Bool {
        switch outcome.answer {
        case .complete, .completeUpToPreemptions: return true
        case .violation, .notAProof: return false
        }
    }
}
