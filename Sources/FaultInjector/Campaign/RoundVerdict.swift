import GuardCore

/// One round of a campaign (or one run of a replay) judged, reduced to what a campaign or a replay keeps: the
/// oracle's report and the round's numbers, without the history. A round run in a child process sends this back as
/// JSON; a round whose process crashed, trapped or stopped answering gets one that says so (see
/// ``RoundVerdict/init(processEnd:log:seconds:)``).
public struct RoundVerdict: Sendable, Codable {
    /// The oracle's verdict (for a crashed round: the crash).
    public var report: OracleReport
    /// Operations performed, handler actions included (0 for a round whose process died: unknown).
    public var operations = 0
    /// Notifications received.
    public var deliveries = 0
    /// Pauses injected (chaos runner).
    public var faultsInjected = 0
    /// Schedule steps taken (controlled runner).
    public var steps = 0
    /// Decisions at which more than one worker could run (controlled runner; PCT learns from it).
    public var choiceSteps: Int?
    /// Whether a controlled round hit its step limit.
    public var hitStepLimit = false
    /// Wall-clock seconds the workers ran (for a round whose process died: how long the parent waited).
    public var seconds = 0.0
    /// True when workers were blocked for good and abandoned (their threads are still blocked in that process).
    public var abandoned = false
    /// Mistakes the guard absorbed in this round, by kind (empty for targets without diagnostics).
    public var preventedMisuses: [GuardDiagnostic.Kind: Int] = [:]

    /// The verdict on `result`, with the guard's diagnostics counted during it.
    public init(_ result: RunResult, preventedMisuses: [GuardDiagnostic.Kind: Int] = [:]) {
        report = result.report
        operations = result.operationsPerformed
        deliveries = result.deliveries
        faultsInjected = result.faultsInjected
        steps = result.recording.controlled?.steps ?? 0
        choiceSteps = result.recording.controlled?.choiceSteps
        hitStepLimit = result.recording.facts.stepLimitExceeded != nil
        seconds = result.seconds
        abandoned = result.abandoned
        self.preventedMisuses = preventedMisuses
    }

    /// A verdict holding only `report` (the numbers are zero).
    public init(report: OracleReport) {
        self.report = report
    }

    /// Whether the oracle held.
    public var passed: Bool { report.passed }

    /// ``OracleReport/signature``: empty when the oracle held.
    public var signature: String { report.signature }
}
