/// One run judged, while its recording is still wanted (to replay, explain or write it down): the
/// ``RunRecording`` and the ``Verdict`` on it. Everything after the run keeps only the verdict.
public struct RunResult: Sendable {
    /// What the runner recorded.
    public let recording: RunRecording
    /// The verdict on the recording.
    public let verdict: Verdict

    /// Pairs a recording with its verdict.
    public init(recording: RunRecording, verdict: Verdict) {
        self.recording = recording
        self.verdict = verdict
    }

    /// Judges `recording` with the oracle for its system under test.
    public init(evaluating recording: RunRecording) {
        self.init(recording: recording, verdict: Oracle(for: recording).evaluate(recording))
    }

    /// Whether the oracle held.
    public var passed: Bool { verdict.passed }
    /// The scenario that ran.
    public var scenario: Scenario { recording.scenario }
    /// The system under test's name.
    public var targetName: String { recording.targetName }
    /// The recorded history (empty if the run was abandoned).
    public var history: History { recording.history }
}
