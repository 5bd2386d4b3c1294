/// Decides which round a campaign starts next, from the settings and what the ledger has recorded: the rounds in
/// order, each with its own seed, its configuration (the last one cut to fit the operation budget, counted in
/// operations the rounds draw) and its runner (PCT's expected step count learned from rounds at least
/// ``Campaign/stepLearningLag`` rounds earlier). None of it depends on timing or on how many rounds run at once,
/// so the rounds are the same whatever ``Campaign/Settings/jobs`` is.
struct RoundPlanner {
    /// What to do next.
    enum Next {
        /// Start this round.
        case start(RoundPlan)
        /// The next round needs earlier rounds recorded first: wait for one to finish.
        case wait
        /// No more rounds.
        case done
    }

    let settings: Campaign.Settings
    private let start: UInt64
    /// The next round's index.
    private(set) var nextRound = 0
    /// Operations the rounds started so far draw.
    private var operationsPlanned = 0

    init(settings: Campaign.Settings, start: UInt64) {
        self.settings = settings
        self.start = start
    }

    /// The next round to start, given what `ledger` has recorded.
    mutating func next(_ ledger: CampaignLedger) -> Next {
        if let stop = ledger.stopRound, nextRound > stop { return .done }
        if nextRound > 0, Double(MonotonicClock.now - start) / 1e9 >= settings.duration { return .done }
        if let budget = settings.operationBudget, operationsPlanned >= budget { return .done }
        var runner = settings.runner
        if case .controlled(var controlled) = runner, controlled.strategy.depth != nil, controlled.expectedSteps == nil {
            switch ledger.learnedSteps(forRound: nextRound, lag: Campaign.stepLearningLag) {
            case .notYet: return .wait
            case .none: break
            case .steps(let steps): controlled.expectedSteps = steps
            }
            runner = .controlled(controlled)
        }
        let plan = RoundPlan(
            kind: .round, index: nextRound, seed: StreamSeeds.seed(run: settings.seed, purpose: .rounds, index: nextRound),
            configuration: settings.roundConfiguration(operationsDone: operationsPlanned), operations: settings.operations,
            runner: runner, target: settings.target, wish: ledger.seedFileWish)
        nextRound += 1
        operationsPlanned += plan.operationCount
        return .start(plan)
    }

    /// The comparison run: round 0's scenario against `target`, with the campaign's runner as given.
    func comparison(against target: String) -> RoundPlan {
        RoundPlan(
            kind: .comparison(target: target), index: RoundPlan.comparisonIndex,
            seed: StreamSeeds.seed(run: settings.seed, purpose: .rounds, index: 0),
            configuration: settings.roundConfiguration(operationsDone: 0), operations: settings.operations,
            runner: settings.runner, target: settings.target, wish: .never)
    }
}
