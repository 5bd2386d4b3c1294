import FaultInjector

/// Whether a failure needs its workers interleaved (a race) or shows with them run one after another (a sequential
/// misuse), as the shrinker found by running the serial orders: each worker alone to its end, one after another,
/// starting with each worker in turn and the others after it in their order (for two workers, both orders).
///
/// The shrinker keeps a race a race: every candidate it keeps fails with the signature and passes every serial order,
/// so the shrunk run still needs at least two workers, and still passes when they do not overlap.
public enum RaceVerdict: Sendable, Equatable, Codable {
    /// No serial order of the `serialOrders` tried fails with the signature: the failure needs the workers to overlap.
    /// `otherFailures`: the signatures the serial orders failed with instead, if any (the race is then what makes
    /// this failure, such as a crash, out of a lesser one every order shows).
    case race(serialOrders: Int, otherFailures: [String] = [])
    /// The serial order starting with worker `firstWorker` fails with the signature (or there is one worker only:
    /// `serialOrders` is then 0): not a race but a sequential misuse.
    case sequential(firstWorker: Int, serialOrders: Int)

    /// Whether the failure needs concurrency.
    public var needsConcurrency: Bool {
        if case .race = self { return true }
        return false
    }

    /// One sentence for a person.
    public var summary: String {
        switch self {
        case .race(let orders, let others):
            let tried = orders == 2 ? "both orders" : "each of \(orders) orders"
            let outcome = others.isEmpty ? "they pass" : "they fail only with \(others.joined(separator: "; "))"
            return "a race: this failure needs the workers to overlap (run one after another, in \(tried), \(outcome)); "
                + "the shrunk file keeps it a race"
        case .sequential(_, 0):
            return "not a race: a sequential misuse (one worker shows the failure alone)"
        case .sequential(let first, _):
            return "not a race: a sequential misuse (the failure shows with the workers run one after another, "
                + "worker \(first) first)"
        }
    }
}

extension RaceVerdict {
    /// Judges, in this process, whether `scenario`'s failure `signature` against `target` needs its workers to
    /// overlap: runs the serial orders (the controlled runner, each worker to its end without preemption, each worker
    /// first in turn) and looks for the signature among them.
    public static func judge(_ scenario: Scenario, failingWith signature: String, against target: any SystemUnderTest) -> RaceVerdict {
        let busy = scenario.operations.indices.filter { !scenario.operations[$0].isEmpty }
        guard busy.count > 1 else { return .sequential(firstWorker: busy.first ?? 0, serialOrders: 0) }
        var others: [String] = []
        for first in busy {
            let found = serialSignature(scenario, first: first, against: target)
            if found == signature { return .sequential(firstWorker: first, serialOrders: scenario.operations.count) }
            if !found.isEmpty { others.append(found) }
        }
        return .race(serialOrders: scenario.operations.count, otherFailures: Array(Set(others)).sorted())
    }

    /// The signature of `scenario` run with its workers one after another, worker `first` first (empty when the
    /// oracle held).
    public static func serialSignature(_ scenario: Scenario, first: Int, against target: any SystemUnderTest) -> String {
        var runner = ControlledRunner()
        runner.customStrategy = { _ in GuidedStrategy(plan: CandidateSchedule.serialPlan(first: first)) }
        return runner.runAndEvaluate(scenario, against: target).verdict.signature
    }
}
