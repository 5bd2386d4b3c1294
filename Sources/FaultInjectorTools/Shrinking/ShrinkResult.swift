import FaultInjector

/// What shrinking a seed file came to.
public enum ShrinkResult: Sendable {
    /// The failure reproduced and was shrunk (perhaps not at all, if it was minimal already).
    case shrunk(ShrinkOutcome)
    /// The file's failure did not come back, so there was nothing to shrink.
    case notReproduced(NotReproduced)
}

/// A failure that was shrunk: the minimal file and how it was found.
public struct ShrinkOutcome: Sendable {
    /// The size of the reproduced original.
    public let original: ShrinkSize
    /// The size of the shrunk run.
    public let shrunk: ShrinkSize
    /// The shrunk seed file (not yet written anywhere).
    public let file: SeedFile
    /// The shrunk file's scenario.
    public let scenario: Scenario
    /// The run the shrunk file records, when candidates ran in this process (`nil` in child processes).
    public let result: RunResult?
    /// Candidates tried.
    public let candidates: Int
    /// Runs made (chaos candidates run up to ``ShrinkSettings/runsPerCandidate`` times, controlled ones once or
    /// twice: with the file's strategy, then guided by the current schedule).
    public let runs: Int
    /// Seconds spent shrinking (verification not included).
    public let seconds: Double
    /// What running candidates in child processes cost (`nil` in process).
    public let isolation: IsolationStatistics?
    /// Set when a budget ran out before the search was done: which one. The file is the smallest found by then.
    public let budgetExhausted: String?
    /// The shrunk file replayed ``ShrinkSettings/verificationRuns`` times (`nil` if none were asked for, or if the
    /// replays could not run).
    public let verification: Replayer.Outcome?
    /// How many verification replays were asked for (0: none; the file is then neither verified nor not).
    public let verificationRuns: Int
    /// Whether the failure is a race (it needs its workers to overlap, and the shrunk file keeps it so) or a
    /// sequential misuse.
    public let race: RaceVerdict
    /// The shrunk scenario explored: whether some interleaving of it fails with the signature and another passes, and
    /// whether that count is complete (`nil` when the check was skipped: one worker, or no budget for it).
    public let explored: ExploredRace?

    /// Whether the verification replays all reproduced the signature (and, for a controlled file, every replay whose
    /// process did not die matched the recording exactly: a crashed one's history never came back to compare; a
    /// controlled file with nothing recorded to compare a finished replay with is not verified). `true` when none
    /// were asked for; `false` when they were but could not run.
    public var verified: Bool {
        Self.isVerified(verification, asked: verificationRuns)
    }

    /// Whether `verification` (of `asked` replays) verifies a shrunk file: see ``verified``.
    static func isVerified(_ verification: Replayer.Outcome?, asked: Int) -> Bool {
        guard asked > 0 else { return true }
        guard let verification else { return false }
        let finished = verification.finishedRuns
        let exact = verification.exactRuns.map { $0 == finished }
            ?? (verification.exactnessNotChecked == nil || finished == 0)
        return exact && verification.sameSignatureRuns == verification.runs
    }
}

/// Why there was nothing to shrink.
public struct NotReproduced: Sendable {
    /// The signature the file records.
    public let expected: String
    /// The signature of every run tried (empty where the oracle held).
    public let signatures: [String]
    /// One sentence for a person.
    public var description: String {
        let seen = Set(signatures.filter { !$0.isEmpty }).sorted()
        let what = seen.isEmpty ? "the oracle held every time" : "other failures only: " + seen.joined(separator: "; ")
        return "the recorded failure \(expected) did not reproduce in \(signatures.count) "
            + (signatures.count == 1 ? "run" : "runs") + " (\(what))"
    }
}

/// What the shrinker reports as it goes.
public struct ShrinkProgress: Sendable {
    /// What happened (`operations of worker 2: 25 → 3`).
    public let note: String
    /// The size now.
    public let size: ShrinkSize
    /// Candidates tried so far.
    public let candidates: Int
    /// Seconds so far.
    public let seconds: Double
}
