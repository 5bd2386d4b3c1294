/// How a controlled run was scheduled: the strategy, the limits, the schedule it took, and (when asked for) the
/// step-by-step trace.
public struct ControlledExecution: Sendable {
    /// The strategy that chose (a replay names the strategy of the run it replays).
    public let strategy: StrategyChoice
    /// The counted steps PCT spread its change points over (`nil` for random).
    public let expectedSteps: Int?
    /// The most steps the run could take under control.
    public let stepLimit: Int
    /// The schedule actually taken.
    public let schedule: Schedule
    /// Decisions at which more than one worker could run (the steps PCT counts).
    public let choiceSteps: Int
    /// Set when the run followed a recorded schedule and stopped matching it.
    public let divergence: ScheduleDivergence?
    /// The step-by-step trace, if the runner was asked to record one.
    public let trace: ExecutionTrace?

    /// Creates the description of a controlled run.
    public init(
        strategy: StrategyChoice, expectedSteps: Int?, stepLimit: Int, schedule: Schedule, choiceSteps: Int,
        divergence: ScheduleDivergence?, trace: ExecutionTrace?
    ) {
        self.strategy = strategy
        self.expectedSteps = expectedSteps
        self.stepLimit = stepLimit
        self.schedule = schedule
        self.choiceSteps = choiceSteps
        self.divergence = divergence
        self.trace = trace
    }

    /// Steps taken.
    public var steps: Int { schedule.count }
}
