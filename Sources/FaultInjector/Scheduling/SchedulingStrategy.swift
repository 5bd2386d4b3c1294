/// What a scheduling strategy sees at one step of a controlled run.
public struct SchedulingDecision: Sendable {
    /// The step's number, from 0.
    public let step: Int
    /// The workers that may run, in increasing order; never empty.
    public let runnable: [Int]
    /// The worker that reached the decision (`nil` at the start, before any worker ran). It is in ``runnable``
    /// unless it just blocked or finished.
    public let current: Int?
    /// Where `current` is.
    public let point: SchedulePoint

    /// Creates a decision.
    public init(step: Int, runnable: [Int], current: Int?, point: SchedulePoint) {
        precondition(!runnable.isEmpty, "a decision needs a runnable worker")
        self.step = step
        self.runnable = runnable
        self.current = current
        self.point = point
    }
}

/// Decides which worker of a controlled run goes next, one step at a time (the role of shuttle's `Scheduler`).
///
/// A strategy is deterministic: the same seed and the same decisions give the same choices, which is what makes a
/// controlled run replay exactly. The cooperative scheduler asks it at every schedule point, on whichever worker
/// thread reached the point, one call at a time.
public protocol SchedulingStrategy: Sendable {
    /// The worker to run next: one of `decision.runnable`.
    mutating func choose(_ decision: SchedulingDecision) -> Int
    /// Called once when the run ends after `steps` steps.
    mutating func runEnded(steps: Int)
    /// Set when the strategy could not do what it was asked (a replay that stopped matching its recording).
    var divergence: ScheduleDivergence? { get }
}

extension SchedulingStrategy {
    /// Nothing to do by default.
    public mutating func runEnded(steps: Int) {}
    /// Strategies that choose freely never diverge.
    public var divergence: ScheduleDivergence? { nil }
}

/// Where and how a replay stopped following its recorded schedule.
public struct ScheduleDivergence: Sendable, Hashable, CustomStringConvertible {
    /// The first step that did not match.
    public let step: Int
    /// What differed.
    public let reason: String

    /// Creates a divergence.
    public init(step: Int, reason: String) {
        self.step = step
        self.reason = reason
    }

    /// `the schedule diverged at step 17: worker 2 is not runnable (runnable: 0, 1)`.
    public var description: String {
        "the schedule diverged at step \(step): \(reason)"
    }
}
