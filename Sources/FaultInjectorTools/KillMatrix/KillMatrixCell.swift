import FaultInjector

/// One cell of the kill matrix: one target (a planted bug, or the guard) on one runner, over several campaign
/// seeds.
public struct KillMatrixCell: Sendable {
    /// How the seed file of the cell's first failure replayed.
    public struct Replay: Sendable {
        /// Runs made.
        public var runs = 0
        /// Runs that failed with the recorded signature.
        public var sameSignatureRuns = 0
        /// Runs that failed at all.
        public var reproducedRuns = 0
        /// Controlled files: runs that followed the recorded schedule and recorded the same history (`nil` for
        /// chaos, and when ``exactnessNotChecked`` says why nothing could be compared).
        public var exactRuns: Int?
        /// Controlled files whose runs could not be compared with a recording: why (``Replayer/Outcome``).
        public var exactnessNotChecked: String?
        /// Runs whose process answered, so they could be compared with the recording
        /// (``Replayer/Outcome/finishedRuns``).
        public var finishedRuns = 0
        /// Why the replay could not run, if it could not.
        public var error: String?

        init(outcome: Replayer.Outcome, recordedSignature: String) {
            runs = outcome.runs
            sameSignatureRuns = outcome.sameSignatureRuns
            reproducedRuns = outcome.violatedRuns
            exactRuns = outcome.exactRuns
            exactnessNotChecked = outcome.exactnessNotChecked
            finishedRuns = outcome.finishedRuns
        }

        init(error: String) {
            self.error = error
        }

        /// Whether it replays: every run failed with the recorded signature, and (controlled) every run that
        /// finished matched the recording exactly (a controlled file with nothing recorded to compare: every run
        /// with the signature, never called exact); a chaos file needs only to reproduce at least once.
        public var replays: Bool {
            guard error == nil, runs > 0 else { return false }
            if let exactRuns { return sameSignatureRuns == runs && exactRuns == finishedRuns }
            if exactnessNotChecked != nil { return sameSignatureRuns == runs }
            return reproducedRuns > 0
        }
    }

    /// The target's name (`bug-dedup-removed`, `guard`).
    public var target: String
    /// `controlled` or `chaos`.
    public var runner: String
    /// Campaigns run.
    public var seeds: Int
    /// Campaign seeds that found a failure.
    public var caughtSeeds = 0
    /// Seconds from each catching campaign's start to the end of its first failing round (child process start and
    /// the oracle included), in seed order.
    public var detectionSeconds: [Double] = []
    /// Violation counts by kind over all campaigns (the oracle checks that fired).
    public var violationsByKind: [String: Int] = [:]
    /// Each catching campaign's first failure signature, in seed order.
    public var signatures: [String] = []
    /// The first seed file written.
    public var firstSeedFile: String?
    /// How that file replayed, if one was written.
    public var replay: Replay?
    /// Rounds run in all.
    public var rounds = 0
    /// Operations performed in all.
    public var operations = 0
    /// Notifications received in all.
    public var deliveries = 0
    /// Schedule steps taken in all (controlled runner).
    public var steps = 0
    /// Seconds all its campaigns took.
    public var seconds = 0.0
    /// All its campaigns' verdicts merged.
    public var verdict = Verdict()
    /// Why a campaign could not run its rounds, if one could not.
    public var harnessError: String?

    init(target: String, runner: String, seeds: Int) {
        self.target = target
        self.runner = runner
        self.seeds = seeds
    }

    /// Whether any seed caught it.
    public var caught: Bool { caughtSeeds > 0 }

    /// The median of ``detectionSeconds`` (`nil` if none caught it).
    public var medianSeconds: Double? {
        guard !detectionSeconds.isEmpty else { return nil }
        let sorted = detectionSeconds.sorted()
        let middle = sorted.count / 2
        return sorted.count % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
    }

    /// The longest of ``detectionSeconds``.
    public var worstSeconds: Double? { detectionSeconds.max() }

    /// Total violations counted.
    public var violations: Int { violationsByKind.values.reduce(0, +) }

    /// Adds a campaign whose first failure (if any) was seen `detectedAfter` seconds after it started.
    mutating func add(_ summary: CampaignSummary, detectedAfter: Double?) {
        rounds += summary.rounds
        operations += summary.operations
        deliveries += summary.deliveries
        steps += summary.steps
        seconds += summary.seconds
        verdict.merge(summary.verdict)
        if let error = summary.harnessError, harnessError == nil { harnessError = error }
        for (kind, count) in summary.verdict.violationCounts { violationsByKind[kind.rawValue, default: 0] += count }
        guard let failure = summary.failures.first else { return }
        caughtSeeds += 1
        detectionSeconds.append(detectedAfter ?? summary.seconds)
        signatures.append(failure.signature)
        if firstSeedFile == nil { firstSeedFile = failure.seedFile }
    }
}

/// The kill matrix's outcome.
public struct KillMatrixResult: Sendable {
    /// What ran.
    public let settings: KillMatrix.Settings
    /// The planted bugs' cells, bug by bug, runner by runner.
    public let mutants: [KillMatrixCell]
    /// The unmodified guard's cells, one per runner.
    public let guardCells: [KillMatrixCell]
    /// Seconds the whole matrix took.
    public let seconds: Double

    /// The planted bugs no runner caught.
    public var survivors: [String] {
        var killed: Set<String> = []
        for cell in mutants where cell.caught { killed.insert(cell.target) }
        return settings.bugs.map(\.rawValue).filter { !killed.contains($0) }
    }

    /// Whether the guard showed a violation (or could not run).
    public var guardFailed: Bool { guardCells.contains { $0.caught || $0.violations > 0 || $0.harnessError != nil } }

    /// Every mutant caught by at least one runner, and the guard clean.
    public var passed: Bool { survivors.isEmpty && !guardFailed }
}
