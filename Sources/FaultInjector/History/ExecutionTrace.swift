import GuardCore

/// What every worker of a controlled run did, step by step: operations beginning and ending, notifications, misuse
/// that reached the runtime, the schedule points it reached and the locks it took, waited for and released. A story renderer (`explain`) shows
/// it as one column per worker and one row per step.
public struct ExecutionTrace: Sendable, Hashable {
    /// The events in the order they happened (only one worker runs at a time).
    public var events: [TraceEvent] = []
    /// Names of the harness's own locks by number (`L3` → `object slot 0 mutation lock`); GuardCore's locks and
    /// the system under test's have none.
    public var lockNames: [Int: String] = [:]

    /// An empty trace.
    public init() {}

    /// `L3 (object slot 0 mutation lock)` or `L7`.
    public func describeLock(_ number: Int) -> String {
        lockNames[number].map { "L\(number) (\($0))" } ?? "L\(number)"
    }
}

/// One thing a worker did during a controlled run.
public struct TraceEvent: Sendable, Hashable {
    /// What happened.
    public enum Kind: Sendable, Hashable {
        /// The worker reached a schedule point and the scheduler decided who runs next (the step's decision).
        case decision(point: SchedulePoint, chosen: Int)
        /// An operation began (its record in the history has the same id). `index` is its position in the worker's
        /// list, -1 for a handler action; `parent` the operation whose handler ran it, or -1.
        case began(operation: Int, index: Int, kind: OperationRecord.Kind, parent: Int)
        /// An operation returned.
        case ended(operation: Int, outcome: OperationRecord.Outcome)
        /// An operation was skipped (an empty slot or a gone controller, a key the target cannot observe, nothing to
        /// change, or the harness's lock order).
        case skipped(operation: Int, index: Int, kind: OperationRecord.Kind)
        /// A notification reached registration `registration` (its observe's id), caused by operation `cause`.
        case delivered(registration: Int, cause: Int, isPrior: Bool)
        /// The worker took lock `lock`.
        case acquired(lock: Int)
        /// The worker must wait for lock `lock`, which `holder` holds.
        case waits(lock: Int, holder: Int)
        /// The worker released lock `lock`.
        case released(lock: Int)
        /// A misuse of kind `kind` reached the runtime on this worker since its previous event (the runtime counted
        /// it; the event that follows is the one it happened in or before).
        case misuse(kind: KVOMisuse.Kind)
        /// The worker finished its operations.
        case finished
    }

    /// The step the event belongs to: the number of the last decision made before it (0 before the first one ends).
    public let step: Int
    /// The worker that did it.
    public let worker: Int
    /// What it did.
    public let kind: Kind

    /// Creates an event.
    public init(step: Int, worker: Int, kind: Kind) {
        self.step = step
        self.worker = worker
        self.kind = kind
    }
}
