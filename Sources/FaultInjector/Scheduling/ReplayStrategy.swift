/// Follows a recorded ``Schedule`` step for step (the role of shuttle's `ReplayScheduler`).
///
/// At every step it checks that the run reached the recorded point and that the recorded worker can run; the first
/// mismatch is kept as the ``divergence`` and the run continues without preemption (the current worker while it
/// can run, else the lowest-numbered one) so it still ends cleanly.
public struct ReplayStrategy: SchedulingStrategy {
    /// The schedule being followed.
    public let schedule: Schedule
    /// Whether a run that goes on past the recorded steps is fine (it continues without preemption); otherwise
    /// that is a divergence. A shrinker that cuts schedules short sets it.
    public let allowsLongerRuns: Bool
    /// The first step that did not match the recording, if any.
    public private(set) var divergence: ScheduleDivergence?

    /// A replay of `schedule`.
    public init(schedule: Schedule, allowsLongerRuns: Bool = false) {
        self.schedule = schedule
        self.allowsLongerRuns = allowsLongerRuns
    }

    /// The recorded worker while the run matches the recording; afterwards, no preemption.
    public mutating func choose(_ decision: SchedulingDecision) -> Int {
        let step = decision.step
        if divergence == nil {
            if step < schedule.count {
                let recordedPoint = schedule.points[step]
                let recorded = schedule.workers[step]
                if decision.point != recordedPoint {
                    divergence = ScheduleDivergence(
                        step: step,
                        reason: "the run reached \(decision.point.name)"
                            + (decision.current.map { " (worker \($0))" } ?? "")
                            + " where the recording reached \(recordedPoint.name)")
                } else if decision.runnable.contains(recorded) {
                    return recorded
                } else {
                    divergence = ScheduleDivergence(
                        step: step,
                        reason: "the recording runs worker \(recorded) next, but it is blocked or finished "
                            + "(runnable: \(decision.runnable.map(String.init).joined(separator: ", ")))")
                }
            } else if !allowsLongerRuns {
                divergence = ScheduleDivergence(
                    step: step, reason: "the recording ends after \(schedule.count) steps but the run goes on")
            }
        }
        if let current = decision.current, decision.runnable.contains(current) { return current }
        return decision.runnable[0]
    }

    /// A run that ends before the recording does has diverged too.
    public mutating func runEnded(steps: Int) {
        if divergence == nil, steps < schedule.count {
            divergence = ScheduleDivergence(
                step: steps, reason: "the run ended after \(steps) steps; the recording has \(schedule.count)")
        }
    }
}
