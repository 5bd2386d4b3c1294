import GuardCore

/// The state of one worker thread while it runs: its log, the operations it is inside of (to attribute
/// notifications to their cause), the object locks it holds, and its fault stream.
///
/// Only the worker's own thread touches it, except `progress` and `currentIndex`, which the watchdog reads.
final class WorkerContext: @unchecked Sendable {
    let index: Int
    var operations: [OperationRecord] = []
    var deliveries: [DeliveryRecord] = []
    /// Diagnostics the system under test reported on this worker's thread.
    var diagnostics: [DiagnosticRecord] = []
    /// Operation ids from outermost to innermost.
    var frames: [Int] = []
    /// Changes held back by the system and being delivered on this thread (``HeldChangeAttribution``): the operation
    /// that made each, and how many frames this thread had when its delivery began.
    var heldCauses: [(cause: Int, depth: Int)] = []
    /// Stress objects that began to deinitialize on this thread inside an operation, in order.
    var objectDeinits: [ObjectDeinitRecord] = []
    /// Bulk removals this thread made, with the handlers each released (``BulkRelease``).
    var bulkReleases: [BulkReleaseRecord] = []
    /// Object slots whose mutation lock this thread holds, in acquisition order.
    var heldObjectSlots: [Int] = []
    /// For each frame, the locks the thread held as it called the system (controlled runs only): the locks held
    /// beyond these while user code runs inside that call are the system's (see ``StressWorld/noteUserCode(_:)``).
    var locksHeldAtCall: [Set<ObjectIdentifier>] = []
    /// User code the system called while holding one of its locks (controlled runs only).
    var callsUnderLock: [String] = []
    var faults: FaultInjection
    private var nextLocalID = 0
    private var nextSequence = 0
    private var worldNumbers = [0, 0]
    let progress = ProgressCounter()

    init(index: Int, faults: FaultInjection) {
        self.index = index
        self.faults = faults
    }

    /// The operation a notification recorded now belongs to: the one whose held-back change is being delivered on
    /// this thread (unless an operation began inside that delivery), else the innermost operation; -1 if none.
    var cause: Int {
        if let held = heldCauses.last, held.depth == frames.count { return held.cause }
        return frames.last ?? -1
    }

    /// A run-unique operation id.
    func makeOperationID() -> Int {
        nextLocalID += 1
        return (index + 1) << 32 | nextLocalID
    }

    /// An id (`kind` 0) or a value (`kind` 1) of the world's, from this worker's own counter: unique in the run,
    /// apart from operation ids (which stay below `256 << 32`), and independent of what other workers drew
    /// (``StressWorld/countersPerWorker``).
    func makeWorldNumber(kind: Int) -> Int {
        worldNumbers[kind] += 1
        return (index + 1) << 40 | kind << 39 | worldNumbers[kind]
    }

    /// Orders the worker's records.
    func makeSequence() -> Int {
        nextSequence += 1
        return nextSequence
    }

    /// Notes that object `object` began to deinitialize on this thread, if inside an operation (a deinit between
    /// operations has no operation whose return surely follows it, and is not noted). Takes no lock and reads no clock,
    /// so it adds no schedule point and no tick.
    func noteObjectDeinit(_ object: Int) {
        guard let operation = frames.last else { return }
        objectDeinits.append(ObjectDeinitRecord(object: object, operation: operation))
    }

    /// The worker of the calling thread, if it is one.
    static var current: WorkerContext? {
        slot.valueIfCreated?.context
    }

    /// Makes `context` the calling thread's worker (or clears it).
    static func setCurrent(_ context: WorkerContext?) {
        slot.value.context = context
    }

    private final class Slot {
        var context: WorkerContext?
    }

    private static let slot = ThreadLocal { Slot() }
}
