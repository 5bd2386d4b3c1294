/// How an ``Explorer`` searches.
public struct ExplorationSettings: Sendable, Hashable, Codable {
    /// Whether to reduce by partial orders (every class of equivalent interleavings once; the default) or run every
    /// interleaving, depth first.
    public var reduction = true
    /// The most preemptions (switches away from a worker that could have gone on) an execution may make; `nil` for
    /// no bound. With a bound the answer is "complete up to K preemptions", never "complete".
    public var preemptionBound: Int?
    /// Stop after this many executions (the answer is then "not a proof"); `nil` for no limit.
    public var maxExecutions: Int?
    /// Whether to stop at the first failing interleaving (the default); otherwise the search goes on to count every
    /// failing and passing class (whether a failure needs concurrency: some classes pass, some fail).
    public var stopsAtFirstViolation = true
    /// Executions run at once, each in a child process; 1 runs them in this process.
    public var jobs = 1
    /// The executable that serves child processes (`guard-stress`), needed when ``jobs`` is more than 1.
    public var childExecutable: String?
    /// The most schedule steps one execution may take; one that takes more proves nothing.
    public var stepLimit = 100_000
    /// Seconds a running worker may go without reaching a schedule point before the execution counts as blocked
    /// outside the scheduler's control (which proves nothing).
    public var blockedTimeout = 2.0
    /// Words left out of every footprint (``SharedWord`` raw values, or ``ObjectWord/lock``): only tests leave any
    /// out, to show what the dependency relation needs.
    package var omittedWords: Set<UInt8> = []


    /// Reduction, no bound, no limit, one job.
    public init() {}

    /// The preemption bounds the command line accepts.
    public static let preemptionBounds = 0...64

    /// The search mode these settings ask for.
    var mode: SearchMode {
        var mode = SearchMode(reduction: reduction, preemptionBound: preemptionBound)
        mode.allowsSleepSets = keepsSleepSets
        return mode
    }

    /// Whether the reduced search keeps sleep sets (only tests turn them off, to compare).
    var keepsSleepSets = true
}
