import FaultInjector

/// Whether a failure needs concurrency, answered by exploring the scenario: every class of interleavings of its
/// workers (dynamic partial-order reduction, ``Explorer``), each judged by the oracle. The failure is a race when some
/// class fails with its signature and some class passes; exact when the exploration was complete, partial otherwise
/// (an execution budget or a preemption bound cut it short, or it could not be completed: see ``note``).
public struct ExploredRace: Sendable, Equatable, Codable {
    /// Classes of interleavings explored.
    public let classes: Int
    /// Classes whose history fails with the signature.
    public let failingClasses: Int
    /// Classes whose history passes the oracle.
    public let passingClasses: Int
    /// Executions run.
    public let executions: Int
    /// Whether every class was explored (the counts are then exact).
    public let complete: Bool
    /// Why the exploration is partial (`nil` when complete).
    public let note: String?

    /// Some interleaving fails with the signature and another passes.
    public var isRace: Bool { failingClasses > 0 && passingClasses > 0 }

    /// One sentence for a person.
    public var summary: String {
        let others = classes - failingClasses - passingClasses
        let counts = "\(failingClasses) of \(classes) classes of interleavings fail with it, \(passingClasses) pass"
            + (others > 0 ? ", \(others) fail otherwise" : "")
        let verdict = isRace ? "a race" : failingClasses == 0 ? "not found by exploring" : "not a race"
        let extent = complete ? "complete" : "partial: \(note ?? "not every class explored")"
        return "by exploring: \(verdict) (\(counts); \(extent), \(executions) executions)"
    }

    /// Explores `scenario` against `target`, counting the classes that fail with `signature` and those that pass, up
    /// to `maxExecutions` executions. `childExecutable` (the `guard-stress` executable) runs the executions in child
    /// processes, so a target that crashes costs a child; `nil` runs them in this process.
    public static func explore(
        _ scenario: Scenario, failingWith signature: String, against target: any SystemUnderTest,
        maxExecutions: Int = 2_000, childExecutable: String? = nil
    ) -> ExploredRace {
        var settings = ExplorationSettings()
        settings.stopsAtFirstViolation = false
        settings.maxExecutions = maxExecutions
        if let childExecutable {
            settings.jobs = 2
            settings.childExecutable = childExecutable
        }
        let explorer = Explorer(scenario: scenario, target: target, settings: settings)
        let (outcome, signatures) = explorer.exploreClassSignatures()
        var note: String?
        switch outcome.answer {
        // Not stopping at violations, the search answers `violation` once the tree is exhausted.
        case .complete, .violation: note = nil
        case .completeUpToPreemptions(let bound): note = "up to \(bound) preemptions"
        case .notAProof(let reason): note = reason
        }
        return ExploredRace(
            classes: outcome.classes, failingClasses: signatures.filter { $0 == signature }.count,
            passingClasses: signatures.filter(\.isEmpty).count, executions: outcome.executions,
            complete: note == nil, note: note)
    }
}
