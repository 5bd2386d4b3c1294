/// A recorded schedule's switching decisions, keyed by who was running and how many decisions it had made so far
/// rather than by global step, so a plan with some preemptions left out (or a scenario with an operation fewer)
/// still means roughly the same interleaving.
///
/// A *preemption* is a step where the running worker could have gone on but another was chosen; a *forced switch*
/// is one where the running worker had blocked or finished. Following the full plan of a schedule repeats that
/// schedule; an empty plan runs each worker until it blocks or finishes.
public struct SwitchPlan: Sendable, Hashable, Codable {
    /// Worker `worker` at its `decision`-th scheduling decision (from 0).
    public struct Moment: Sendable, Hashable, Comparable, Codable {
        /// The running worker.
        public let worker: Int
        /// How many decisions it had made before this one.
        public let decision: Int

        /// Orders by worker, then decision.
        public static func < (lhs: Moment, rhs: Moment) -> Bool {
            (lhs.worker, lhs.decision) < (rhs.worker, rhs.decision)
        }
    }

    /// The worker chosen at the start.
    public var first: Int?
    /// Preemptions: at this moment, hand over to that worker.
    public var preemptions: [Moment: Int]
    /// Forced switches: when this worker blocked or finished at this moment, that worker went next.
    public var forcedSwitches: [Moment: Int]
    /// The preemptions in the order the recorded schedule made them.
    public var preemptionOrder: [Moment]

    /// An empty plan: no preemption at all.
    public init() {
        first = nil
        preemptions = [:]
        forcedSwitches = [:]
        preemptionOrder = []
    }

    /// The plan of `schedule`: every switch it made, each as a preemption or a forced switch.
    public init(_ schedule: Schedule) {
        self.init()
        guard !schedule.isEmpty else { return }
        first = schedule.workers[0]
        var decisions: [Int: Int] = [:]
        for step in 1..<schedule.count {
            let running = schedule.workers[step - 1]
            let moment = Moment(worker: running, decision: decisions[running, default: 0])
            decisions[running, default: 0] += 1
            let chosen = schedule.workers[step]
            guard chosen != running else { continue }
            switch schedule.points[step] {
            case .wait, .finish:
                forcedSwitches[moment] = chosen
            default:
                preemptions[moment] = chosen
                preemptionOrder.append(moment)
            }
        }
    }

    /// The same plan with only the preemptions in `kept`.
    public func keeping(preemptions kept: [Moment]) -> SwitchPlan {
        var plan = self
        let keptSet = Set(kept)
        plan.preemptionOrder = preemptionOrder.filter { keptSet.contains($0) }
        plan.preemptions = preemptions.filter { keptSet.contains($0.key) }
        return plan
    }

    /// The plan for a scenario whose worker `new` was worker `origins[new]`: workers that are gone drop out.
    public func renumbering(workers origins: [Int]) -> SwitchPlan {
        var newIndex: [Int: Int] = [:]
        for (new, old) in origins.enumerated() { newIndex[old] = new }
        func map(_ table: [Moment: Int]) -> [Moment: Int] {
            var mapped: [Moment: Int] = [:]
            for (moment, target) in table {
                guard let worker = newIndex[moment.worker], let chosen = newIndex[target] else { continue }
                mapped[Moment(worker: worker, decision: moment.decision)] = chosen
            }
            return mapped
        }
        var plan = SwitchPlan()
        plan.first = first.flatMap { newIndex[$0] }
        plan.preemptions = map(preemptions)
        plan.forcedSwitches = map(forcedSwitches)
        plan.preemptionOrder = preemptionOrder.compactMap { moment in
            newIndex[moment.worker].map { Moment(worker: $0, decision: moment.decision) }
        }.filter { plan.preemptions[$0] != nil }
        return plan
    }
}

/// Follows a ``SwitchPlan``: the planned worker at each planned preemption or forced switch if it can run, otherwise
/// no preemption (the running worker while it can run, else the lowest-numbered runnable one). Deterministic, so a
/// run under it is recorded and then replays exactly from its own schedule.
public struct GuidedStrategy: SchedulingStrategy {
    /// The plan followed.
    public let plan: SwitchPlan
    private var decisions: [Int: Int] = [:]

    /// A strategy following `plan`.
    public init(plan: SwitchPlan) {
        self.plan = plan
    }

    /// The planned choice where the plan has one and it can run; otherwise no preemption.
    public mutating func choose(_ decision: SchedulingDecision) -> Int {
        let runnable = decision.runnable
        guard let running = decision.current else {
            if let first = plan.first, runnable.contains(first) { return first }
            return runnable[0]
        }
        let moment = SwitchPlan.Moment(worker: running, decision: decisions[running, default: 0])
        decisions[running, default: 0] += 1
        if let next = plan.preemptions[moment], runnable.contains(next) { return next }
        if runnable.contains(running) { return running }
        if let next = plan.forcedSwitches[moment], runnable.contains(next) { return next }
        return runnable[0]
    }
}
