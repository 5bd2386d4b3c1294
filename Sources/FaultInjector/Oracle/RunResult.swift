/// One run judged: its recording and the oracle's verdict on it.
public struct RunResult: Sendable {
    /// What the runner recorded.
    public let recording: RunRecording
    /// The oracle's verdict.
    public let report: OracleReport

    /// Pairs a recording with its verdict.
    public init(recording: RunRecording, report: OracleReport) {
        self.recording = recording
        self.report = report
    }

    /// Judges `recording` with the oracle for its system under test.
    public init(evaluating recording: RunRecording) {
        self.init(recording: recording, report: Oracle(for: recording).evaluate(recording))
    }

    /// Whether the oracle held.
    public var passed: Bool { report.passed }
    /// The scenario that ran.
    public var scenario: Scenario { recording.scenario }
    /// The system under test's name.
    public var targetName: String { recording.targetName }
    /// The recorded history (empty if the run was abandoned).
    public var history: History { recording.history }
    /// Operations performed, handler actions included.
    public var operationsPerformed: Int { recording.operationsPerformed }
    /// Notifications received.
    public var deliveries: Int { recording.deliveries }
    /// Pauses injected.
    public var faultsInjected: Int { recording.faultsInjected }
    /// Wall-clock seconds the workers ran.
    public var seconds: Double { recording.seconds }
    /// True when workers were blocked for good and abandoned.
    public var abandoned: Bool { recording.abandoned }
}
