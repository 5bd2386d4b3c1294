/// Everything one run of a scenario recorded, without any verdict: the history, the facts around it, the numbers
/// for reports and, for a controlled run, how it was scheduled. ``Oracle`` judges it in a separate step.
public struct RunRecording: Sendable {
    /// The scenario that ran.
    public let scenario: Scenario
    /// The system under test's name.
    public let targetName: String
    /// Whether the system under test promises guard semantics (the oracle checks those promises only then).
    public let promisesGuardSemantics: Bool
    /// Whether the system under test reports its diagnostics (the oracle checks them only then).
    public let reportsDiagnostics: Bool
    /// Whether the system under test drops weakly held registrations inside their object's deinit (the oracle then
    /// ends them surely when the deinit finished).
    public var dropsWeakRegistrationsInObjectDeinit = false
    /// Whether the system under test releases the registrations a bulk removal takes out in the order they were made
    /// (the oracle then checks ``History/bulkReleases``).
    public var releasesInRegistrationOrder = false
    /// The recorded history (empty if the run was abandoned).
    public var history: History
    /// What the history does not show.
    public var facts: RunFacts
    /// Operations performed, handler actions included.
    public let operationsPerformed: Int
    /// Notifications received.
    public let deliveries: Int
    /// Pauses injected (chaos runner only).
    public let faultsInjected: Int
    /// Wall-clock seconds the workers ran.
    public let seconds: Double
    /// True when workers were blocked for good and abandoned (their threads are still blocked).
    public let abandoned: Bool
    /// How a controlled run was scheduled; `nil` for the chaos runner.
    public var controlled: ControlledExecution?
    /// What an explored run recorded of its steps (for the explorer only).
    var explored: ExploredRun?

    /// Creates a recording.
    public init(
        scenario: Scenario, targetName: String, promisesGuardSemantics: Bool, history: History, facts: RunFacts,
        operationsPerformed: Int, deliveries: Int, faultsInjected: Int, seconds: Double, abandoned: Bool,
        controlled: ControlledExecution? = nil, reportsDiagnostics: Bool = false
    ) {
        self.scenario = scenario
        self.targetName = targetName
        self.promisesGuardSemantics = promisesGuardSemantics
        self.reportsDiagnostics = reportsDiagnostics
        self.history = history
        self.facts = facts
        self.operationsPerformed = operationsPerformed
        self.deliveries = deliveries
        self.faultsInjected = faultsInjected
        self.seconds = seconds
        self.abandoned = abandoned
        self.controlled = controlled
    }
}
