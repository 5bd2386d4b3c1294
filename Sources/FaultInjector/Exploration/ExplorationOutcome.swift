/// The answer of an exploration.
public enum ExplorationAnswer: Sendable, Hashable, Codable {
    /// Every class of interleavings was explored and the oracle held in each: a proof for this scenario and target.
    case complete
    /// Every class with an interleaving of at most this many preemptions was explored, and the oracle held in each.
    case completeUpToPreemptions(Int)
    /// An interleaving broke the oracle (see ``ExplorationOutcome/failure``).
    case violation
    /// The exploration cannot be trusted as a proof, for the reason given (a re-execution that did not repeat its
    /// prefix, a run past its step limit, a worker blocked outside the scheduler's control, a limit on executions).
    case notAProof(String)
}

/// A failing interleaving an exploration found.
public struct ExploredFailure: Sendable, Codable {
    /// The oracle's signature.
    public let signature: String
    /// A few of the violations, one line each.
    public let examples: [String]
    /// The canonical interleaving of the failing class: the worker chosen at each scheduling step.
    public let canonicalSchedule: [Int]
    /// Which execution (from 1) found it.
    public let execution: Int
}

/// What an ``Explorer`` found: the answer, and how much it explored.
public struct ExplorationOutcome: Sendable, Codable {
    /// The answer.
    public let answer: ExplorationAnswer
    /// Distinct classes of equivalent interleavings explored to the end (each counted once, however many executions
    /// ran it).
    public let classes: Int
    /// Executions run (each a full controlled run of the scenario).
    public let executions: Int
    /// Executions stopped early as sleep-set blocked (they could only repeat an explored class).
    public let sleepBlocked: Int
    /// Wall-clock seconds.
    public let seconds: Double
    /// Classes whose history broke the oracle (every one with ``ExplorationSettings/stopsAtFirstViolation`` off; at
    /// most the first otherwise).
    public let failingClasses: Int
    /// Classes in which the oracle held.
    public var passingClasses: Int { classes - failingClasses }
    /// The first failing interleaving, for ``ExplorationAnswer/violation``.
    public let failure: ExploredFailure?
    /// The first failing class of each distinct signature, in the order found (with
    /// ``ExplorationSettings/stopsAtFirstViolation`` on, at most ``failure``).
    public let failures: [ExploredFailure]

    /// Executions per second.
    public var executionsPerSecond: Double {
        Double(executions) / max(seconds, 1e-9)
    }

    /// `explored 20 classes in 20 executions: complete, 0 violations`, or the violation's or the reason's line.
    public var summary: String {
        let counts = "explored \(classes) class\(classes == 1 ? "" : "es") in \(executions) execution"
            + (executions == 1 ? "" : "s")
        switch answer {
        case .complete: return counts + ": complete, 0 violations"
        case .completeUpToPreemptions(let bound):
            return counts + ": complete up to \(bound) preemption\(bound == 1 ? "" : "s"), 0 violations"
        case .violation:
            return counts + ": violation \(failure?.signature ?? "") in execution \(failure?.execution ?? 0)"
        case .notAProof(let reason): return counts + ": NOT A PROOF: \(reason)"
        }
    }
}
