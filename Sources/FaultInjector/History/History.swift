/// Everything one run recorded, merged from all workers, plus the facts the oracle needs about instances.
public struct History: Sendable {
    /// Every operation, ordered by call time.
    public var operations: [OperationRecord]
    /// Every notification, ordered by time.
    public var deliveries: [DeliveryRecord]
    /// Every diagnostic the system under test reported, ordered by time (empty for systems that report none).
    public var diagnostics: [DiagnosticRecord]
    /// When each observer deinitialized (monotonic ns), by observer id.
    public var observerDeinitTimes: [Int: UInt64]
    /// When each stress object had surely finished deinitializing (monotonic ns), by object id: the return of the
    /// innermost operation its deinit ran inside (GuardCore's runtime drops a weakly held object's registrations
    /// during that deinit, before it finishes). Objects whose deinit ran outside every operation are absent.
    public var objectDeinitTimes: [Int: UInt64]
    /// Ids of the stress objects that had left their slot (released or adopted) and were still alive when every
    /// worker had finished, before the world released its controllers and slots.
    public var releasedObjectsAliveAtEnd: Set<Int>
    /// When each controller handle started releasing its controller (monotonic ns), by controller id.
    public var controllerEndStartTimes: [Int: UInt64]
    /// When each controller handle finished releasing its controller (monotonic ns), by controller id.
    public var controllerEndTimes: [Int: UInt64]
    /// Controller id → observer id, for every controller created.
    public var controllerObservers: [Int: Int]
    /// Controller ids that held objects weakly.
    public var weakControllers: Set<Int>
    /// Every bulk removal the harness made (during the run and in the teardown), with the handlers each released in
    /// order (``BulkRelease``). Not part of the history's digest: it follows from the operations and the schedule.
    public var bulkReleases: [BulkReleaseRecord]
    /// What each value-sequence consumer of the round saw (chaos runs; ``StreamPlan``). Not part of the digest.
    public var streams: [StreamRecord]

    /// An empty history.
    public init() {
        operations = []
        deliveries = []
        diagnostics = []
        observerDeinitTimes = [:]
        objectDeinitTimes = [:]
        releasedObjectsAliveAtEnd = []
        controllerEndStartTimes = [:]
        controllerEndTimes = [:]
        controllerObservers = [:]
        weakControllers = []
        bulkReleases = []
        streams = []
    }
}
