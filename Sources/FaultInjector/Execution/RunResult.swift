import GuardCore

/// Everything one run of a scenario produced: the verdict, the history it rests on, and the numbers for reports.
public struct RunResult: Sendable {
    /// The scenario that ran.
    public let scenario: Scenario
    /// The system under test's name.
    public let targetName: String
    /// The oracle's verdict.
    public let report: OracleReport
    /// The recorded history (empty if the run deadlocked).
    public let history: History
    /// Operations performed, handler actions included.
    public let operationsPerformed: Int
    /// Notifications received.
    public let deliveries: Int
    /// Pauses injected.
    public let faultsInjected: Int
    /// Wall-clock seconds the workers ran.
    public let seconds: Double
    /// True when workers deadlocked and were abandoned (their threads are still blocked).
    public let abandoned: Bool

    /// Whether the oracle held.
    public var passed: Bool { report.passed }
}
