import FaultInjector
import GuardCore

/// Replays a seed file once and tells the run as a ``RunStory``.
///
/// A controlled file is replayed exactly, following its recorded schedule with the step-by-step trace on, so the
/// story is the recorded run itself (the story says so, or where the replay stopped matching). A chaos file cannot
/// be replayed exactly: it is run until its failure shows (at most ``chaosAttempts`` times) and that one run's
/// history is told in wall-clock order; the story says it is one replay, not necessarily the original.
public struct Explainer: Sendable {
    /// The file.
    public let file: SeedFile
    /// Its name, for the story's title.
    public let fileName: String
    /// The system it runs against (the file's own by default).
    public let target: any SystemUnderTest
    /// Chaos files: the most runs made to see the recorded failure again.
    public var chaosAttempts = 20

    /// An explainer of `file` (named `fileName` in the story), against `target` (the file's own by default).
    public init(file: SeedFile, fileName: String, target: (any SystemUnderTest)? = nil) throws(SeedFileError) {
        self.file = file
        self.fileName = fileName
        guard let resolved = target ?? TargetCatalog.make(file.target, diagnostics: CountingSink(keepsEvents: false))
        else { throw .unknownTarget(file.target) }
        self.target = resolved
    }

    /// Replays the file and tells the run.
    public func explain() throws(SeedFileError) -> RunStory {
        var round = try SeedFileRound(file: file, target: target)
        round.recordsTrace = true
        let scenario = try file.makeScenario()
        let runner = try round.makeRunner()
        if file.isControlled {
            let outcome = round.run(scenario, with: runner)
            let result = outcome.result
            guard let trace = result.recording.controlled?.trace else {
                throw .nonsensical("the replay recorded no trace")
            }
            let steps = result.recording.controlled?.steps ?? 0
            let provenance: String
            if let mismatch = outcome.mismatch {
                provenance = "NOT an exact replay of the recorded run: run 1: \(mismatch)"
            } else if let reason = round.exactnessNotChecked {
                provenance = "\(steps) schedule steps; whether this is the recorded run was not checked: \(reason)"
            } else {
                provenance = "an exact replay of the recorded schedule: \(steps) steps, "
                    + "the same history (digest \(result.history.digest))"
            }
            return StoryBuilder(
                result: result, events: StoryEvents.controlled(trace), lockNames: trace,
                header: header(result, provenance: provenance), stepsAreScheduleSteps: true
            ).build()
        }
        var result = round.run(scenario, with: runner).result
        var attempt = 1
        while !showsRecordedFailure(result), attempt < max(1, chaosAttempts) {
            attempt += 1
            result = round.run(scenario, with: runner).result
        }
        let provenance = "one chaos replay (run \(attempt) of up to \(max(1, chaosAttempts)), "
            + (showsRecordedFailure(result) ? "the first that showed the recorded failure" : "none showed the recorded failure")
            + "): the operations are the file's, the interleaving is this replay's own, not necessarily the original's; "
            + "events in wall-clock order"
        return StoryBuilder(
            result: result, events: StoryEvents.chaos(result.history), lockNames: ExecutionTrace(),
            header: header(result, provenance: provenance), stepsAreScheduleSteps: false
        ).build()
    }

    /// Whether `result` failed with the file's recorded signature.
    private func showsRecordedFailure(_ result: RunResult) -> Bool {
        !result.passed && result.verdict.signature == file.failure.signature
    }

    private func header(_ result: RunResult, provenance: String) -> RunStory.Header {
        let runner = file.strategy.map { "\(file.runner) (\($0)\(file.depth.map { " depth \($0)" } ?? ""))" } ?? file.runner
        return RunStory.Header(
            title: fileName, target: target.name, runner: runner, seed: file.seed,
            workers: result.scenario.operations.count, operations: result.scenario.operationCount,
            provenance: provenance, recordedSignature: file.failure.signature, signature: result.verdict.signature)
    }
}
