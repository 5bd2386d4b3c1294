/// Picks uniformly among the runnable workers at every step, from its own seeded stream.
public struct RandomStrategy: SchedulingStrategy {
    private var generator: Xoshiro256StarStar

    /// A strategy drawing from `seed`.
    public init(seed: UInt64) {
        generator = Xoshiro256StarStar(seed: seed)
    }

    /// A uniformly drawn runnable worker (no draw when only one can run).
    public mutating func choose(_ decision: SchedulingDecision) -> Int {
        let runnable = decision.runnable
        return runnable.count == 1 ? runnable[0] : runnable[generator.next(below: runnable.count)]
    }
}
