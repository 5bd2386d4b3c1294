/// Executes a scenario against a system under test and records what happened, without judging it: the
/// ``Oracle`` evaluates the ``RunRecording`` in a separate step.
///
/// ``ChaosRunner`` runs the workers on real threads at once; ``ControlledRunner`` runs them one at a time under a
/// cooperative scheduler. Runs use the process-wide misuse policy and counters, so runs in one process are
/// serialized (a run waits for the one before it).
public protocol ScenarioRunner: Sendable {
    /// Runs `scenario` against `target` and returns the recording.
    func run(_ scenario: Scenario, against target: any SystemUnderTest) -> RunRecording
}

extension ScenarioRunner {
    /// Runs `scenario` against `target`, then judges the recording: the two steps in one call.
    public func runAndEvaluate(_ scenario: Scenario, against target: any SystemUnderTest) -> RunResult {
        RunResult(evaluating: run(scenario, against: target))
    }
}
