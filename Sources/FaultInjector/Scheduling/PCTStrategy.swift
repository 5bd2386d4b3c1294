/// Probabilistic concurrency testing (Burckhardt, Kothari, Musuvathi and Nagarakatte, "A Randomized Scheduler with
/// Probabilistic Guarantees of Finding Bugs", ASPLOS 2010), the strategy of shuttle's `PctScheduler`.
///
/// Every worker gets a distinct random priority, and the highest-priority runnable worker always runs. At `depth - 1`
/// change points, drawn uniformly over the expected number of steps, the running worker's priority drops below
/// every initial priority (to `i` at the `i`-th change point, as in the paper). A bug that needs `d` ordering
/// constraints is found by one run with probability at least `1 / (n × k^(d-1))` for `n` workers and `k` steps.
///
/// Steps are counted as in the paper (section 4.1) and shuttle: only decisions with more than one runnable worker
/// count, so sequential stretches do not dilute the change points.
public struct PCTStrategy: SchedulingStrategy {
    /// The bug depth the strategy targets (1: no change points).
    public let depth: Int
    /// The number of counted steps the change points are spread over.
    public let expectedSteps: Int
    /// The counted steps (from 1) at which the running worker's priority drops: `depth - 1` distinct values in
    /// `1...expectedSteps`, ascending.
    public let changePoints: [Int]
    /// Each worker's current priority; the highest runnable one runs. Initial priorities are distinct and at least
    /// `depth`; a worker lowered at the `i`-th change point has priority `i`.
    public private(set) var priorities: [Int]
    /// Decisions with more than one runnable worker so far.
    public private(set) var countedSteps = 0
    private var changesMade = 0

    /// A strategy for `workers` workers, drawing its priorities and change points from `seed`.
    public init(depth: Int, workers: Int, expectedSteps: Int, seed: UInt64) {
        precondition(depth >= 1, "PCT needs a depth of at least 1")
        precondition(workers >= 1, "PCT needs at least one worker")
        self.depth = depth
        self.expectedSteps = max(1, expectedSteps)
        var generator = Xoshiro256StarStar(seed: seed)
        var initial = Array(depth..<(depth + workers))
        for index in stride(from: initial.count - 1, to: 0, by: -1) {
            initial.swapAt(index, generator.next(below: index + 1))
        }
        priorities = initial
        let range = max(self.expectedSteps, depth - 1)
        var points = Set<Int>()
        while points.count < depth - 1 { points.insert(1 + generator.next(below: range)) }
        changePoints = points.sorted()
    }

    /// Lowers the running worker at a change point, then picks the highest-priority runnable worker.
    public mutating func choose(_ decision: SchedulingDecision) -> Int {
        if decision.runnable.count > 1 {
            countedSteps += 1
            if changesMade < changePoints.count, changePoints[changesMade] == countedSteps {
                changesMade += 1
                if let current = decision.current { priorities[current] = changesMade }
            }
        }
        var best = decision.runnable[0]
        for worker in decision.runnable.dropFirst() where priorities[worker] > priorities[best] { best = worker }
        return best
    }
}
