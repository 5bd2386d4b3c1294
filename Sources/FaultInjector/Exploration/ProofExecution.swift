import GuardCore

/// Explores every scenario of a ``ProofSuite`` (or of one shard of it) against a target named in the catalog, in
/// this process or, with ``ExplorationSettings/jobs`` above 1, a whole scenario per child process at once, the
/// scenarios with the most interleavings first, so that no long one is left running alone at the end. Stops handing
/// out scenarios at the first that is not complete (the ones already running finish).
public struct ProofExecution: Sendable {
    /// The suite.
    public let suite: ProofSuite
    /// The target's name (``TargetCatalog``).
    public let targetName: String
    /// How each scenario is explored.
    public let settings: ExplorationSettings
    /// The part of the suite explored: every `count`-th scenario from the `index`-th (1-based), or all of them.
    public let shard: ProofShard?

    /// A run of `suite` (of its `shard`, if given) against `targetName`.
    public init(suite: ProofSuite, targetName: String, settings: ExplorationSettings, shard: ProofShard? = nil) {
        self.suite = suite
        self.targetName = targetName
        self.settings = settings
        self.shard = shard
    }

    /// The suite indexes of the scenarios this run explores, in the suite's order.
    public var indexes: [Int] {
        let all = Array(suite.scenarios.indices)
        guard let shard else { return all }
        return all.filter { $0 % shard.count == shard.index - 1 }
    }

    /// Explores the scenarios; `progress` hears the number of scenarios done (and the total) after each.
    public func run(progress: (_ done: Int, _ total: Int) -> Void = { _, _ in }) -> ProofOutcome {
        let start = MonotonicClock.now
        let all = suite.scenarios
        let indexes = self.indexes
        let scenarios = indexes.map { all[$0] }
        var outcomes: [ExplorationOutcome?]
        if settings.jobs > 1, let executable = settings.childExecutable {
            outcomes = inChildren(scenarios, executable: executable, progress: progress)
        } else {
            outcomes = inProcess(scenarios, progress: progress)
        }
        // Every scenario explored, in the suite's order; a run that stopped early left some out.
        let kept = outcomes.indices.compactMap { position in outcomes[position].map { (indexes[position], $0) } }
        return ProofOutcome(
            suite: suite, scenarios: kept.count, outcomes: kept.map(\.1), indexes: kept.map(\.0),
            seconds: Double(MonotonicClock.now - start) / 1e9)
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
        // The most interleavings first: a scenario's grow with the product of its workers' operation counts.
        let order = scenarios.indices.sorted { left, right in
            let (l, r) = (Self.weight(scenarios[left]), Self.weight(scenarios[right]))
            return l != r ? l > r : left < right
        }
        var next = 0
        var running = 0
        var done = 0
        var stopped = false
        while true {
            while !stopped, running < settings.jobs, next < order.count {
                var job = ExplorationJob()
                job.scenario = ScenarioMessage(scenarios[order[next]])
                job.target = targetName
                job.settings = scenarioSettings
                job.exploresWhole = true
                workers.submit(job, id: order[next])
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

    /// How long `scenario` is likely to take, relative to the others: the product of its workers' operation counts.
    static func weight(_ scenario: Scenario) -> Int {
        scenario.operations.reduce(1) { $0 * max(1, $1.count) }
    }

    /// Whether `outcome` is complete (or complete up to its bound).
    static func isComplete(_ outcome: ExplorationOutcome) -> Bool {
        switch outcome.answer {
        case .complete, .completeUpToPreemptions: return true
        case .violation, .notAProof: return false
        }
    }
}

/// One part of a proof suite, for splitting a long run over machines: every `count`-th scenario from the `index`-th.
public struct ProofShard: Sendable, Hashable {
    /// Which part, 1 to ``count``.
    public let index: Int
    /// How many parts.
    public let count: Int

    /// Part `index` of `count`; `nil` unless 1 ≤ `index` ≤ `count`.
    public init?(index: Int, of count: Int) {
        guard count >= 1, (1...count).contains(index) else { return nil }
        self.index = index
        self.count = count
    }
}
