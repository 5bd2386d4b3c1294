import GuardCore

/// Replays a seed file: runs its round (``SeedFileRound``: the file's scenario with the file's runner against its
/// target, judged) several times, and reports how often the failure came back.
///
/// A chaos file replays operations, not interleavings, so a race reproduces with a rate; misuse that follows from
/// the operations alone (removing what was never added) reproduces every time. A controlled file replays exactly:
/// each run follows the recorded schedule step for step and must record the same history; the first step where a
/// run stops matching is reported as a divergence. A run counts as exact only when both were compared: when the
/// file has no recorded schedule (the strategy and seed regenerate one), no history digest, or is replayed against
/// another target, nothing recorded can be compared, and ``exactnessNotChecked`` says why.
public struct Replayer: Sendable {
    /// The outcome of a replay.
    public struct Outcome: Sendable {
        /// Runs made.
        public let runs: Int
        /// Runs whose oracle was violated.
        public let violatedRuns: Int
        /// Runs whose failure signature equals the seed file's.
        public let sameSignatureRuns: Int
        /// The signature of each run (empty when the oracle held).
        public let signatures: [String]
        /// The last violated run's verdict, for details.
        public let lastViolation: Verdict?
        /// The last run, judged (its recording holds the schedule and, if asked for, the trace). `nil` when the
        /// runs were made in child processes.
        public let lastResult: RunResult?
        /// For a controlled file whose exactness could be checked: runs that followed the recorded schedule without
        /// divergence and recorded the history whose digest the file records. `nil` for chaos, and when
        /// ``exactnessNotChecked`` says why nothing recorded could be compared.
        public let exactRuns: Int?
        /// For a controlled file: why its runs could not be checked for exactness (no recorded schedule, no history
        /// digest, or another target than the file's), or `nil` when they were checked (and always for chaos).
        public let exactnessNotChecked: String?
        /// Why runs did not match (a divergence, or a different history), one line per such run.
        public let mismatches: [String]
        /// Each run's verdict, in order.
        public let verdicts: [Verdict]
        /// Runs whose process crashed, trapped or was killed before answering (child processes only): their
        /// histories could not be compared with the recording.
        public let crashedRuns: Int
        /// What running in child processes cost, or `nil` in process.
        public let isolation: IsolationStatistics?
        /// With ``Replayer/recordsFailure``: the first run that violated the oracle, written down as a seed file (its
        /// operations, its failure and, for a controlled run, the schedule it took), keeping the replayed file's
        /// description. `nil` when no run violated the oracle, or recording was not asked for.
        public let recordedFailure: SeedFile?

        /// Whether the recorded failure came back: at least one run failed with the seed file's signature.
        public var reproduced: Bool { sameSignatureRuns > 0 }

        /// Whether the oracle was violated at least once (with the recorded signature or another).
        public var violated: Bool { violatedRuns > 0 }

        /// Runs whose process answered (all but ``crashedRuns``): the runs whose histories could be compared with
        /// the recording.
        public var finishedRuns: Int { runs - crashedRuns }
    }

    /// The round every run repeats: the file, the target, and how a run is made and compared with the recording.
    public var round: SeedFileRound
    /// Whether to write down the first run that violates the oracle (``Outcome/recordedFailure``): the way to a seed
    /// file that records a failure, from a text scenario or a seed file that records none, so it can be shrunk.
    public var recordsFailure = false

    /// A replay of `file` against `target` (by default the target the file names).
    public init(file: SeedFile, target: (any SystemUnderTest)? = nil) throws(SeedFileError) {
        round = try SeedFileRound(file: file, target: target)
    }

    /// A replay that repeats `round`.
    public init(round: SeedFileRound) {
        self.round = round
    }

    /// The seed file being replayed.
    public var file: SeedFile { round.file }
    /// The system the operations run against.
    public var target: any SystemUnderTest { round.target }
    /// Whether the target is the one the file names (a recorded schedule applies only to that one).
    public var replaysRecordedTarget: Bool { round.replaysRecordedTarget }
    /// Whether controlled runs record their step-by-step trace (for explaining them).
    public var recordsTrace: Bool {
        get { round.recordsTrace }
        set { round.recordsTrace = newValue }
    }
    /// Seconds without progress after which a chaos run counts as deadlocked.
    public var chaosStallTimeout: Double {
        get { round.chaosStallTimeout }
        set { round.chaosStallTimeout = newValue }
    }

    /// The runner of every replay run (``SeedFileRound/makeRunner()``).
    @available(*, deprecated, message: "use round.makeRunner() (SeedFileRound)")
    public func makeRunner() throws(SeedFileError) -> any ScenarioRunner {
        try round.makeRunner()
    }

    /// Whether runs follow a recorded schedule (``SeedFileRound/followsRecordedSchedule``).
    public var followsRecordedSchedule: Bool { round.followsRecordedSchedule }

    /// For a controlled file: why its runs cannot be checked for exactness, naming what the file or the replay
    /// lacks; `nil` when they can (a recorded schedule with its history digest, replayed against the file's own
    /// target), and always for chaos, which never claims exactness.
    public var exactnessNotChecked: String? { round.exactnessNotChecked }

    /// Runs the scenario `runs` times in this process.
    public func replay(runs: Int) throws(SeedFileError) -> Outcome {
        let scenario = try file.makeScenario()
        let runner = try round.makeRunner()
        var tally = Tally(file: file, exactness: round.exactness)
        var lastResult: RunResult?
        for run in 0..<max(1, runs) {
            let outcome = round.run(scenario, with: runner)
            let result = outcome.result
            lastResult = result
            if recordsFailure, !result.passed { tally.record(SeedFile(result: result, toolVersion: ToolVersion.current)) }
            tally.add(result.verdict, mismatch: outcome.mismatch.map { "run \(run + 1): \($0)" })
            if result.verdict.abandoned, !file.isControlled { break }
        }
        return tally.outcome(lastResult: lastResult, isolation: nil)
    }

    /// Runs the scenario `runs` times, each run in a child process (see ``RoundIsolation``): a run that crashes,
    /// traps or hangs is a verdict of its own (`crash(SIGSEGV)`, `trap`, `deadlock`), and the next run starts in a
    /// fresh process. The target must be one the children can make by name. Throws a ``SeedFileError`` for a bad
    /// file, an ``IsolationError`` when no child process can be started.
    public func replay(runs: Int, isolatedBy settings: ChildProcessSettings) throws -> Outcome {
        let scenario = try file.makeScenario()
        _ = try round.makeRunner()
        let host = ChildRoundHost(settings: settings, roundsPerProcess: settings.roundsPerProcess(for: try file.makeRunnerChoice()))
        defer { host.finish() }
        let request = RoundRequest(
            file: file, target: replaysRecordedTarget ? nil : target.name, stallTimeout: settings.stallTimeout,
            seedFile: recordsFailure ? .always : .never)
        var tally = Tally(file: file, exactness: round.exactness)
        for run in 0..<max(1, runs) {
            switch host.run(request, operations: scenario.operationCount) {
            case .answered(let answer):
                guard let verdict = answer.verdict else {
                    throw IsolationError(description: "the child process could not run \(file.target)'s seed file: \(answer.error ?? "no reason given")")
                }
                if recordsFailure, !verdict.passed {
                    tally.record(answer.seedFile ?? file.finished(with: verdict, scenario: scenario))
                }
                tally.add(verdict, mismatch: answer.mismatch.map { "run \(run + 1): \($0)" })
            case .ended(let verdict, _):
                if recordsFailure { tally.record(file.finished(with: verdict, scenario: scenario)) }
                tally.add(verdict, mismatch: nil, crashed: true)
            case .failed(let error):
                throw error
            case .interrupted:
                throw IsolationError(description: "the replay's run was stopped before it finished")
            }
        }
        return tally.outcome(lastResult: nil, isolation: host.statistics)
    }

    /// Counts runs into an ``Outcome``.
    private struct Tally {
        let file: SeedFile
        let exactness: ReplayExactness
        var violated = 0
        var same = 0
        var exact = 0
        var crashed = 0
        var mismatches: [String] = []
        var verdicts: [Verdict] = []
        var last: Verdict?
        var recorded: SeedFile?

        init(file: SeedFile, exactness: ReplayExactness) {
            self.file = file
            self.exactness = exactness
        }

        /// Keeps `failure` if it is the first failing run, with the replayed file's description.
        mutating func record(_ failure: SeedFile) {
            guard recorded == nil else { return }
            var failure = failure
            failure.description = file.description
            failure.shrunk = nil
            recorded = failure
        }

        mutating func add(_ verdict: Verdict, mismatch: String?, crashed runCrashed: Bool = false) {
            verdicts.append(verdict)
            if !verdict.passed {
                violated += 1
                last = verdict
                if verdict.signature == file.failure.signature { same += 1 }
            }
            if runCrashed {
                crashed += 1
            } else if exactness != .notClaimed {
                // A run with nothing recorded to compare it with is never counted exact; a divergence from a
                // recorded schedule is still a mismatch.
                if let mismatch { mismatches.append(mismatch) } else if exactness.isChecked { exact += 1 }
            }
        }

        func outcome(lastResult: RunResult?, isolation: IsolationStatistics?) -> Outcome {
            Outcome(
                runs: verdicts.count, violatedRuns: violated, sameSignatureRuns: same,
                signatures: verdicts.map(\.signature), lastViolation: last, lastResult: lastResult,
                exactRuns: exactness.isChecked ? exact : nil, exactnessNotChecked: exactness.notCheckedReason,
                mismatches: mismatches, verdicts: verdicts, crashedRuns: crashed, isolation: isolation,
                recordedFailure: recorded)
        }
    }
}
