import GuardCore

/// The schedule hook of controlled runs: forwards each point from a worker thread to the scheduler that thread
/// works for (found through a thread-local binding); every other thread passes straight through.
///
/// There is one for the process, so installing it for each run keeps nothing of the run alive, and a worker of an
/// abandoned run that wakes up later still reaches its own scheduler (which parks it) rather than a later run's.
final class ControlledHook: ScheduleHook {
    /// The hook.
    static let shared = ControlledHook()

    private final class Binding {
        var scheduler: CooperativeScheduler?
        var worker = -1
        /// How the locks the worker takes now count in an explored step's footprint.
        var lockMode = LockMode.exclusive
        /// On the runner's thread while it sets a run up: the scheduler that hears what the thread creates (and
        /// nothing else).
        var settingUp: CooperativeScheduler?
    }

    private static let bindings = ThreadLocal { Binding() }

    private init() {}

    /// Makes the calling thread worker `worker` of `scheduler`.
    static func bind(_ scheduler: CooperativeScheduler, worker: Int) {
        let binding = bindings.value
        binding.scheduler = scheduler
        binding.worker = worker
    }

    /// The calling thread is no longer a worker.
    static func unbind() {
        guard let binding = bindings.valueIfCreated else { return }
        binding.scheduler = nil
        binding.worker = -1
    }

    /// Runs `body` (the runner thread setting up a run) telling `scheduler` about every object it creates, and
    /// nothing else.
    static func settingUp<Result>(for scheduler: CooperativeScheduler, _ body: () -> Result) -> Result {
        let binding = bindings.value
        binding.settingUp = scheduler
        defer { binding.settingUp = nil }
        return body()
    }

    /// Runs `body` on the calling thread without telling its scheduler about the locks `body` takes, so harness
    /// bookkeeping (reading the runtime's misuse counters for the trace) adds no schedule steps. Only for code that
    /// cannot wait for another worker: the locks it takes are never held across a schedule point.
    static func unannounced<Result>(_ body: () -> Result) -> Result {
        guard let binding = bindings.valueIfCreated, let scheduler = binding.scheduler else { return body() }
        binding.scheduler = nil
        defer { binding.scheduler = scheduler }
        return body()
    }

    /// Runs `body`, whose locks count as `mode` in an explored step's footprint (a harness section that only reads
    /// what its lock guards, or bookkeeping whose order does not matter). Neither changes the schedule: the locks are
    /// announced as always. `body` must reach no schedule point while holding them (one that does counts as
    /// exclusive from then on).
    static func withLockMode<Result>(_ mode: LockMode, _ body: () -> Result) -> Result {
        guard let binding = bindings.valueIfCreated, binding.scheduler != nil else { return body() }
        let outer = binding.lockMode
        binding.lockMode = mode
        defer { binding.lockMode = outer }
        return body()
    }

    /// The locks the calling thread holds as a worker of a controlled run, or `nil` on any other thread (a chaos
    /// run's worker included: only a scheduler knows who holds which lock).
    static func locksHeldByCallingWorker() -> Set<ObjectIdentifier>? {
        guard let binding else { return nil }
        return binding.scheduler!.locksHeld(by: binding.worker)
    }

    /// Names `lock` in the reports and trace of the calling worker's scheduler (a ``ScheduledLock`` with a name);
    /// costs no schedule step. Does nothing on any other thread.
    static func name(_ lock: AnyObject, _ name: String) {
        guard let binding else { return }
        binding.scheduler!.name(lock: ObjectIdentifier(lock), name)
    }

    @inline(__always)
    private static var binding: Binding? {
        guard let binding = bindings.valueIfCreated, binding.scheduler != nil else { return nil }
        return binding
    }

    func reach(_ point: NamedSchedulePoint, object: ObjectIdentifier) {
        guard let binding = Self.binding else { return }
        binding.scheduler!.reach(point, worker: binding.worker)
    }

    func access(_ object: ObjectIdentifier, _ word: SharedWord, _ kind: SharedAccess) {
        guard let binding = Self.binding else { return }
        binding.scheduler!.access(object, word, kind, worker: binding.worker)
    }

    func created(_ object: ObjectIdentifier) {
        guard let binding = Self.bindings.valueIfCreated else { return }
        if let scheduler = binding.scheduler {
            scheduler.created(object, worker: binding.worker)
        } else if let scheduler = binding.settingUp {
            scheduler.created(object, worker: -1)
        }
    }

    func guards(_ lock: ObjectIdentifier, _ word: SharedWord) {
        guard let binding = Self.bindings.valueIfCreated else { return }
        (binding.scheduler ?? binding.settingUp)?.guards(lock, word)
    }

    func willAcquire(_ lock: ObjectIdentifier, waiters: LockWaiters, readOnly: Bool) {
        guard let binding = Self.binding else { return }
        let mode = readOnly && binding.lockMode == .exclusive ? .shared : binding.lockMode
        binding.scheduler!.willAcquire(lock, mode: mode, waiters: waiters, worker: binding.worker)
    }

    func didRelease(_ lock: ObjectIdentifier, wokeWaiter: Bool?) {
        guard let binding = Self.binding else { return }
        binding.scheduler!.didRelease(lock, wokeWaiter: wokeWaiter, worker: binding.worker)
    }
}
