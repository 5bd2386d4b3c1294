import GuardCore

/// One round described by a seed file, run once and judged: the file's scenario (the written operations, or the ones
/// its seed regenerates) run by the file's runner against a target, the recording judged by the oracle and, for a
/// controlled file, compared with the recorded schedule and history.
///
/// ```swift
/// let round = try SeedFileRound(file: try SeedFileStore.read("seed-raw-7.json"))
/// let outcome = try round.run()
/// print(outcome.result.verdict.signature, outcome.mismatch ?? "nothing showed a mismatch")
/// ```
///
/// A round served in a child process (``RoundServer``) is one such run; ``Replayer`` repeats it and tallies how often
/// the recorded failure came back. A controlled file's run follows the recorded schedule step for step when the file
/// has one and the target is the file's own (``followsRecordedSchedule``); otherwise its strategy and seed regenerate
/// a schedule, and ``exactnessNotChecked`` says why nothing recorded can be compared.
public struct SeedFileRound: Sendable {
    /// One run of the round, judged.
    public struct Outcome: Sendable {
        /// The run and the oracle's verdict on it.
        public let result: RunResult
        /// For a controlled file: why the run did not match the recording (where it diverged from the recorded
        /// schedule, or that it recorded another history than the recorded digest). `nil` when nothing showed it did
        /// not, and always for chaos; whether it was compared at all is ``SeedFileRound/exactnessNotChecked``'s to
        /// say.
        public let mismatch: String?
    }

    /// The seed file describing the round.
    public let file: SeedFile
    /// The system the operations run against.
    public let target: any SystemUnderTest
    /// Whether the target is the one the file names (a recorded schedule applies only to that one).
    public let replaysRecordedTarget: Bool
    /// Whether a controlled run records its step-by-step trace (for explaining it).
    public var recordsTrace = false
    /// Seconds without progress after which a chaos run counts as deadlocked.
    public var chaosStallTimeout = ChaosRunner().deadlockTimeout

    /// The round `file` describes, against `target` (by default the target the file names). Throws
    /// ``SeedFileError/unknownTarget(_:)`` when no target is given and the catalog cannot make the file's.
    public init(file: SeedFile, target: (any SystemUnderTest)? = nil) throws(SeedFileError) {
        self.file = file
        guard let resolved = target ?? TargetCatalog.make(file.target, diagnostics: CountingSink(keepsEvents: false)) else {
            throw .unknownTarget(file.target)
        }
        self.target = resolved
        replaysRecordedTarget = target == nil || target?.name == file.target
    }

    /// The round's runner: the file's, following its recorded schedule when there is one and the target is the
    /// recorded one.
    public func makeRunner() throws(SeedFileError) -> any ScenarioRunner {
        let choice = try file.makeRunnerChoice()
        guard case .controlled(var settings) = choice else {
            var chaos = ChaosRunner()
            chaos.deadlockTimeout = chaosStallTimeout
            return chaos
        }
        settings.recordsTrace = recordsTrace
        let schedule = replaysRecordedTarget ? try file.makeSchedule() : nil
        return ControlledRunner(settings: settings, replaying: schedule)
    }

    /// Whether a run follows a recorded schedule.
    public var followsRecordedSchedule: Bool {
        file.isControlled && file.schedule != nil && replaysRecordedTarget
    }

    /// For a controlled file: why its runs cannot be checked for exactness, naming what the file or the target
    /// lacks; `nil` when they can (a recorded schedule with its history digest, run against the file's own target),
    /// and always for chaos, which never claims exactness.
    public var exactnessNotChecked: String? { exactness.notCheckedReason }

    /// Whether this round's runs are compared with the file's recording, and if not, why.
    var exactness: ReplayExactness {
        ReplayExactness(
            file: file, controlled: file.isControlled, targetName: target.name, replaysRecordedTarget: replaysRecordedTarget)
    }

    /// Runs the round once in this process with the file's scenario and runner (``makeRunner()``), and judges it.
    /// Throws a ``SeedFileError`` when the file's scenario or runner cannot be made.
    public func run() throws(SeedFileError) -> Outcome {
        run(try file.makeScenario(), with: try makeRunner())
    }

    /// Runs `scenario` once with `runner` (the file's, from ``makeRunner()``, or one steering it otherwise) against
    /// the target, judges the run and, for a controlled file, compares it with the recording.
    public func run(_ scenario: Scenario, with runner: any ScenarioRunner) -> Outcome {
        let result = runner.runAndEvaluate(scenario, against: target)
        guard file.isControlled else { return Outcome(result: result, mismatch: nil) }
        if let divergence = result.recording.controlled?.divergence {
            return Outcome(result: result, mismatch: "\(divergence)")
        }
        let recordedDigest = followsRecordedSchedule ? file.schedule?.historyDigest : nil
        if let recordedDigest, result.history.digest != recordedDigest {
            return Outcome(
                result: result,
                mismatch: "the recorded schedule was followed step for step, but the history differs "
                    + "(digest \(result.history.digest), recorded \(recordedDigest)): something outside the "
                    + "scheduler's control decided differently")
        }
        return Outcome(result: result, mismatch: nil)
    }
}
