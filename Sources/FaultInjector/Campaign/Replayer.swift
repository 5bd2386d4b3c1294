import GuardCore

/// Replays a seed file: runs its scenario (the written operations, or the ones its seed regenerates) with the
/// file's runner against its target several times, judges each run, and reports how often the failure came back.
///
/// A chaos file replays operations, not interleavings, so a race reproduces with a rate; misuse that follows from
/// the operations alone (removing what was never added) reproduces every time. A controlled file replays exactly:
/// each run follows the recorded schedule step for step (or, without one, the file's strategy and seed regenerate
/// it) and must record the same history; the first step where a run stops matching is reported as a divergence.
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
        /// The last violated run's report, for details.
        public let lastViolation: OracleReport?
        /// The last run, judged (its recording holds the schedule and, if asked for, the trace).
        public let lastResult: RunResult?
        /// For a controlled file: runs that matched the recording exactly (followed the recorded schedule without
        /// divergence and, when the file has the history's digest, recorded the same history). `nil` for chaos.
        public let exactRuns: Int?
        /// Why runs did not match (a divergence, or a different history), one line per such run.
        public let mismatches: [String]

        /// Whether the oracle was violated at least once.
        public var reproduced: Bool { violatedRuns > 0 }
    }

    /// The seed file being replayed.
    public let file: SeedFile
    /// The system the operations run against.
    public let target: any SystemUnderTest
    /// Whether the target is the one the file names (a recorded schedule applies only to that one).
    public let replaysRecordedTarget: Bool
    /// Whether controlled runs record their step-by-step trace (for explaining them).
    public var recordsTrace = false

    /// A replay of `file` against `target` (by default the target the file names).
    public init(file: SeedFile, target: (any SystemUnderTest)? = nil) throws(SeedFileError) {
        self.file = file
        guard let resolved = target ?? TargetCatalog.make(file.target, diagnostics: CountingSink(keepsEvents: false)) else {
            throw .unknownTarget(file.target)
        }
        self.target = resolved
        replaysRecordedTarget = target == nil || target?.name == file.target
    }

    /// The runner of every replay run: the file's, following its recorded schedule when there is one and the
    /// target is the recorded one.
    public func makeRunner() throws(SeedFileError) -> any ScenarioRunner {
        let choice = try file.makeRunnerChoice()
        guard case .controlled(var settings) = choice else { return choice.makeRunner() }
        settings.recordsTrace = recordsTrace
        let schedule = replaysRecordedTarget ? try file.makeSchedule() : nil
        return ControlledRunner(settings: settings, replaying: schedule)
    }

    /// Whether runs follow a recorded schedule.
    public var followsRecordedSchedule: Bool {
        file.runner == RunnerChoice.controlled(.init()).name && file.schedule != nil && replaysRecordedTarget
    }

    /// Runs the scenario `runs` times.
    public func replay(runs: Int) throws(SeedFileError) -> Outcome {
        let scenario = try file.makeScenario()
        let runner = try makeRunner()
        let controlled = file.runner == RunnerChoice.controlled(.init()).name
        let recordedDigest = followsRecordedSchedule ? file.schedule?.historyDigest : nil
        var violated = 0
        var same = 0
        var exact = 0
        var mismatches: [String] = []
        var signatures: [String] = []
        var last: OracleReport?
        var lastResult: RunResult?
        for run in 0..<max(1, runs) {
            let result = runner.runAndEvaluate(scenario, against: target)
            lastResult = result
            signatures.append(result.report.signature)
            if !result.passed {
                violated += 1
                last = result.report
            }
            if result.report.signature == file.failure.signature, !result.passed { same += 1 }
            if controlled {
                if let divergence = result.recording.controlled?.divergence {
                    mismatches.append("run \(run + 1): \(divergence)")
                } else if let recordedDigest, result.history.digest != recordedDigest {
                    mismatches.append(
                        "run \(run + 1): the recorded schedule was followed step for step, but the history differs "
                            + "(digest \(result.history.digest), recorded \(recordedDigest)): something outside the "
                            + "scheduler's control decided differently")
                } else {
                    exact += 1
                }
            }
            if result.abandoned, !controlled { break }
        }
        return Outcome(
            runs: signatures.count, violatedRuns: violated, sameSignatureRuns: same, signatures: signatures,
            lastViolation: last, lastResult: lastResult, exactRuns: controlled ? exact : nil, mismatches: mismatches)
    }
}
