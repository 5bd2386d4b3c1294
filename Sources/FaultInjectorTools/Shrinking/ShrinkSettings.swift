import FaultInjector

/// How far the shrinker goes and how hard it checks each candidate.
public struct ShrinkSettings: Sendable {
    /// Chaos files: the most runs a candidate gets. It counts as failing at its first run with the file's signature,
    /// and as passing only after this many runs without it: a failure that shows in a fraction `p` of runs is missed
    /// with probability `(1 - p)^runsPerCandidate`. Controlled files need one run per candidate.
    public var runsPerCandidate = 10
    /// Stop trying candidates after this many (the smallest failing scenario so far is kept).
    public var maximumCandidates = 5_000
    /// Stop trying candidates after this many seconds.
    public var maximumSeconds = 300.0
    /// Replays of the shrunk file after shrinking, to confirm it: a controlled file must replay exactly every time.
    public var verificationRuns = 20
    /// Where candidate runs (and the verification replays) execute, by default ``RoundIsolation/automatic``: in this
    /// process (any target works, but a candidate that crashes or traps ends the process, and one that hangs hangs
    /// the shrinker), or each in a child process (`guard-stress shrink` does unless `--in-process`), where a crash, a trap or a hang is the
    /// candidate's verdict (`crash(SIGSEGV)`, `trap`, `deadlock`) and the search goes on. The target must then be
    /// one the children can make by name.
    public var isolation = RoundIsolation.automatic
    /// Executions the final check gets: the shrunk scenario is explored (``ExploredRace``) to tell whether some
    /// interleaving of it fails with the signature and another passes; 0 skips the check. Past the budget the
    /// answer says it is partial.
    public var raceExplorationExecutions = 2_000

    /// Ten runs per chaos candidate, 5,000 candidates or five minutes, 20 verification replays.
    public init() {}

    /// The runs per candidate the command line accepts.
    public static let runsPerCandidateRange = 1...1_000

    /// `(1 - p)^runs`: the chance that a candidate whose failure shows in a fraction `p` of runs looks passing.
    public static func missProbability(showingIn p: Double, runs: Int) -> Double {
        var miss = 1.0
        for _ in 0..<max(0, runs) { miss *= 1 - p }
        return miss
    }
}
