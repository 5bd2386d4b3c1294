import GuardCore

/// Runs the workers of a controlled run one at a time, each on its own thread, switching only at schedule points.
///
/// Through ``ControlledHook`` (GuardCore's schedule hook) it hears every named schedule point and every announced
/// lock acquire and release of its worker threads; the harness adds one point before each operation and one when a worker
/// finishes. At each point the running worker asks the ``SchedulingStrategy`` which runnable worker goes next and,
/// if another, hands over and waits for its turn. It tracks who holds which announced lock: taking a lock another
/// worker holds blocks the worker until the lock is released; taking one the worker holds itself is a
/// self-deadlock. When every unfinished worker is blocked, that is a deadlock, reported at once. A run that takes
/// more than its step limit is released to run on uncontrolled. The runner's watchdog reports a running worker that
/// reaches no point for a while as blocked outside the scheduler's control.
///
/// All state is guarded by a ``ParkingLot`` (never GuardCore's `Lock`, which would call back into the hook).
final class CooperativeScheduler: TraceRecorder, @unchecked Sendable {
    /// How the controlled part of a run ended.
    enum End {
        /// Every worker finished (perhaps after the step limit released them).
        case completed
        /// The run was abandoned: a deadlock, a self-deadlock, a worker blocked outside the scheduler's control, or
        /// workers that never started. Blocked threads stay blocked.
        case abandoned(String)
    }

    private enum Status: Equatable {
        case ready, running, finished
        case blocked(ObjectIdentifier)
    }

    private enum Mode {
        /// One worker at a time, switching at schedule points.
        case controlling
        /// Past the step limit: every worker runs uncontrolled until it finishes.
        case released
        /// Given up: every worker that reaches a point again parks for good.
        case abandoned
    }

    private struct HeldLock {
        let owner: Int
        let step: Int
    }

    let workerCount: Int
    private let parkingLot: ParkingLot
    private var statuses: [Status]
    private var running = -1
    private var mode = Mode.controlling
    private var strategy: any SchedulingStrategy
    private var schedule = Schedule()
    private var choiceSteps = 0
    private let stepLimit: Int
    private var held: [ObjectIdentifier: HeldLock] = [:]
    private var lockNumbers: [ObjectIdentifier: Int] = [:]
    private var lockNames: [ObjectIdentifier: String] = [:]
    private var trace: ExecutionTrace?
    /// The runtime's misuse counters as last seen (with a trace only), to put each new misuse into the trace.
    private var misuseCounts: [KVOMisuse.Kind: Int] = [:]
    private var arrived = 0
    private var finished = 0
    private var events = 0
    private var stopReason: String?
    /// Whether the run was abandoned for a deadlock among announced locks (every unfinished worker blocked on one, or
    /// one taking a lock it holds), rather than for a worker blocked outside the scheduler's control.
    private var deadlockedAmongLocks = false
    private var stepLimitReport: String?
    private var lastPoints: [(step: Int, point: SchedulePoint)?]
    /// The lock each worker is about to take (at its acquire point), if any.
    private var acquiring: [ObjectIdentifier?]
    /// Whether each blocked worker stands for a thread asleep on its lock's word (see ``LockWaiters``): only a
    /// release that says it woke a waiter lets it run again.
    private var sleepsUntilWoken: [Bool]
    /// Locks released without waking the waiters asleep on them: who released each and at which step.
    private var lostWakeUps: [ObjectIdentifier: (worker: Int, step: Int)] = [:]
    /// Reused for every decision, so deciding allocates nothing.
    private var runnable: [Int] = []
    private let describeWorker: @Sendable (Int) -> String
    /// Records each step's footprint for an explorer; `nil` for every other run.
    private let recorder: StepRecorder?

    private var runnerParty: Int { workerCount }

    /// A scheduler for `workers` workers. `describeWorker` names a worker and what it is doing, for reports.
    init(
        workers: Int, strategy: any SchedulingStrategy, stepLimit: Int, recordsTrace: Bool,
        recorder: StepRecorder? = nil, describeWorker: @escaping @Sendable (Int) -> String
    ) {
        self.recorder = recorder
        workerCount = workers
        parkingLot = ParkingLot(parties: workers + 1)
        statuses = Array(repeating: .ready, count: workers)
        lastPoints = Array(repeating: nil, count: workers)
        acquiring = Array(repeating: nil, count: workers)
        sleepsUntilWoken = Array(repeating: false, count: workers)
        self.strategy = strategy
        self.stepLimit = stepLimit
        self.trace = recordsTrace ? ExecutionTrace() : nil
        if recordsTrace { misuseCounts = RuntimeMonitor.misuseCountsByKind }
        self.describeWorker = describeWorker
    }

    /// Names for some locks (the harness's own), used in reports and the trace. Call before the run starts.
    func name(locks names: [ObjectIdentifier: String]) {
        parkingLot.lock()
        defer { parkingLot.unlock() }
        lockNames = names
    }

    /// Names one lock (a ``ScheduledLock`` given a name, as a worker takes it), for reports and the trace. Takes no
    /// schedule step.
    func name(lock: ObjectIdentifier, _ name: String) {
        parkingLot.lock()
        defer { parkingLot.unlock() }
        lockNames[lock] = name
    }

    // MARK: Worker threads

    /// Called by worker `worker` when its thread starts: waits for its first turn.
    func arrive(_ worker: Int) {
        parkingLot.lock()
        defer { parkingLot.unlock() }
        arrived += 1
        if arrived == workerCount { parkingLot.signal(runnerParty) }
        waitForTurn(worker)
    }

    /// Called by worker `worker` before each of its operations.
    func beforeOperation(_ worker: Int) {
        parkingLot.lock()
        defer { parkingLot.unlock() }
        events &+= 1
        decide(worker, at: .operation)
    }

    /// Called by worker `worker` after its last operation; hands over to the next worker.
    func finish(_ worker: Int) {
        parkingLot.lock()
        defer { parkingLot.unlock() }
        events &+= 1
        statuses[worker] = .finished
        finished += 1
        note(.finished, worker: worker)
        if mode == .controlling {
            decide(worker, at: .finish)
        } else if finished == workerCount {
            parkingLot.signal(runnerParty)
        }
    }

    // MARK: Schedule points (forwarded by ControlledHook from the worker's thread)

    /// Worker `worker` accessed `word` of `object` without a lock (recorded for an explorer only).
    func access(_ object: ObjectIdentifier, _ word: SharedWord, _ kind: SharedAccess, worker: Int) {
        record { $0.access(object, word, kind, worker: worker) }
    }

    /// Worker `worker` (-1: the runner, setting the run up) made `object` (recorded for an explorer only).
    func created(_ object: ObjectIdentifier, worker: Int) {
        record { $0.created(object, worker: worker) }
    }

    /// `lock`, just made, guards state of kind `word` (recorded for an explorer only).
    func guards(_ lock: ObjectIdentifier, _ word: SharedWord) {
        record { $0.guards(lock, word) }
    }

    /// Runs `body` with the explorer's recorder, if any, while the scheduler controls the run.
    private func record(_ body: (StepRecorder) -> Void) {
        guard let recorder else { return }
        parkingLot.lock()
        defer { parkingLot.unlock() }
        guard mode == .controlling else { return }
        body(recorder)
    }

    /// Worker `worker` reached GuardCore's schedule point `point`.
    func reach(_ point: NamedSchedulePoint, worker: Int) {
        parkingLot.lock()
        defer { parkingLot.unlock() }
        events &+= 1
        decide(worker, at: SchedulePoint(point))
    }

    /// Worker `worker` is about to take `lock`, whose sleeping waiters are `waiters`; returns when the lock is free
    /// for it. While it waits, it stands for a thread asleep on the lock (see ``LockWaiters``).
    func willAcquire(
        _ lock: ObjectIdentifier, mode lockMode: LockMode = .exclusive, waiters: LockWaiters = .untracked, worker: Int
    ) {
        parkingLot.lock()
        defer { parkingLot.unlock() }
        events &+= 1
        var point = SchedulePoint.acquire
        while mode == .controlling {
            if let holder = held[lock] {
                if holder.owner == worker { selfDeadlock(worker, lock: lock, since: holder.step) }
                // Only the first look is free of charge for an explored run: there a worker about to take a held
                // lock never runs (see `awaitsHeldLock`), so being chosen and finding it held is a step of its own.
                if point == .wait { recorder?.foundHeld(lock) }
                statuses[worker] = .blocked(lock)
                sleepsUntilWoken[worker] = waiters.markWaiting()
                if trace != nil { note(.waits(lock: number(of: lock), holder: holder.owner), worker: worker) }
                point = .wait
            }
            acquiring[worker] = lock
            decide(worker, at: point)
            guard mode == .controlling else { return }
            if held[lock] == nil {
                acquiring[worker] = nil
                held[lock] = HeldLock(owner: worker, step: max(0, schedule.count - 1))
                recorder?.acquired(lock, mode: lockMode)
                if trace != nil { note(.acquired(lock: number(of: lock)), worker: worker) }
                return
            }
            point = .wait
        }
        if mode == .abandoned { parkForever(worker) }
    }

    /// Worker `worker` released `lock`; `wokeWaiter` says whether the release woke a sleeping waiter (`nil`: the lock
    /// does not say). Workers blocked on `lock` may run again, except, after a release that woke none, those that
    /// stand for threads asleep on it: nothing wakes them (a lost wake-up).
    func didRelease(_ lock: ObjectIdentifier, wokeWaiter: Bool? = nil, worker: Int) {
        parkingLot.lock()
        defer { parkingLot.unlock() }
        events &+= 1
        guard mode == .controlling else {
            if mode == .abandoned { parkForever(worker) }
            return
        }
        if held[lock]?.owner == worker { held[lock] = nil }
        recorder?.released(lock)
        for other in 0..<workerCount where statuses[other] == .blocked(lock) {
            if sleepsUntilWoken[other], wokeWaiter == false {
                lostWakeUps[lock] = (worker, schedule.count)
                continue
            }
            sleepsUntilWoken[other] = false
            statuses[other] = .ready
        }
        if trace != nil { note(.released(lock: number(of: lock)), worker: worker) }
        decide(worker, at: .release)
    }

    /// The locks worker `worker` holds now (every lock that announces itself to GuardCore's schedule points).
    func locksHeld(by worker: Int) -> Set<ObjectIdentifier> {
        parkingLot.lock()
        defer { parkingLot.unlock() }
        return Set(held.filter { $0.value.owner == worker }.keys)
    }

    // MARK: TraceRecorder

    func record(_ kind: TraceEvent.Kind, worker: Int) {
        // Read before taking the parking lot's mutex: the counters' lock is GuardCore's, kept out of the schedule.
        let misuses = ControlledHook.unannounced { RuntimeMonitor.misuseCountsByKind }
        parkingLot.lock()
        defer { parkingLot.unlock() }
        for (misuseKind, count) in misuses.sorted(by: { $0.key.rawValue < $1.key.rawValue }) {
            let before = misuseCounts[misuseKind, default: 0]
            for _ in before..<max(before, count) { note(.misuse(kind: misuseKind), worker: worker) }
        }
        misuseCounts = misuses
        note(kind, worker: worker)
    }

    // MARK: Deciding

    /// One scheduling decision by `worker` (-1: the runner, for the first step) at `point`. Monitor held. Returns
    /// when `worker` may go on; never returns if the run is abandoned meanwhile.
    private func decide(_ worker: Int, at point: SchedulePoint) {
        switch mode {
        case .controlling: break
        case .released: return
        case .abandoned: parkForever(worker)
        }
        if worker >= 0 { lastPoints[worker] = (schedule.count, point) }
        recorder?.endStep(of: worker, at: point)
        runnable.removeAll(keepingCapacity: true)
        for candidate in 0..<workerCount where statuses[candidate] == .ready || statuses[candidate] == .running {
            if recorder != nil, awaitsHeldLock(candidate) { continue }
            runnable.append(candidate)
        }
        if runnable.isEmpty {
            if finished == workerCount {
                strategy.runEnded(steps: schedule.count)
                parkingLot.signal(runnerParty)
                return
            }
            deadlockedAmongLocks = true
            abandon(describeDeadlock())
            parkForever(worker)
        }
        let step = schedule.count
        if step >= stepLimit {
            return release()
        }
        if runnable.count > 1 { choiceSteps += 1 }
        let chosen = strategy.choose(
            SchedulingDecision(step: step, runnable: runnable, current: worker >= 0 ? worker : nil, point: point))
        precondition(runnable.contains(chosen), "the scheduling strategy chose worker \(chosen), which cannot run")
        schedule.append(worker: chosen, at: point)
        recorder?.beginStep(chosen: chosen, current: worker, point: point, runnable: runnable)
        if worker >= 0 { note(.decision(point: point, chosen: chosen), worker: worker) }
        if chosen == worker {
            statuses[worker] = .running
            running = worker
            return
        }
        if worker >= 0, statuses[worker] == .running { statuses[worker] = .ready }
        running = chosen
        statuses[chosen] = .running
        parkingLot.signal(chosen)
        if worker < 0 || statuses[worker] == .finished { return }
        waitForTurn(worker)
    }

    /// Whether `worker` is about to take a lock another worker holds now (mutex held). An explored run counts such a
    /// worker as unable to run, whether it found the lock held when it got there (blocked) or the lock was taken
    /// after it got there: the step that brought it there then did the same whatever the lock's state, and steps of
    /// one class line up whichever came first. Other runs let it be chosen, to find the lock held.
    private func awaitsHeldLock(_ worker: Int) -> Bool {
        guard let lock = acquiring[worker], let holder = held[lock] else { return false }
        return holder.owner != worker
    }

    /// Waits (mutex held) until `worker` is chosen, the run is released, or abandoned (then forever).
    private func waitForTurn(_ worker: Int) {
        while running != worker {
            switch mode {
            case .controlling: parkingLot.wait(worker)
            case .released: return
            case .abandoned: parkForever(worker)
            }
        }
    }

    private func parkForever(_ worker: Int) -> Never {
        let party = worker >= 0 && worker < workerCount ? worker : runnerParty
        while true { parkingLot.wait(party) }
    }

    private func abandon(_ reason: String) {
        guard mode != .abandoned else { return }
        mode = .abandoned
        stopReason = reason
        parkingLot.signal(runnerParty)
    }

    /// Past the step limit: let every worker run on uncontrolled.
    private func release() {
        let unfinished = (0..<workerCount).filter { statuses[$0] != .finished }
        stepLimitReport =
            "the run was still going after its limit of \(stepLimit) schedule steps (a livelock, or a scenario too "
            + "long for the limit); unfinished: " + unfinished.map(describeWorker).joined(separator: "; ")
        mode = .released
        for worker in 0..<workerCount { parkingLot.signal(worker) }
        parkingLot.signal(runnerParty)
    }

    private func selfDeadlock(_ worker: Int, lock: ObjectIdentifier, since step: Int) -> Never {
        deadlockedAmongLocks = true
        abandon(
            "self-deadlock: \(describeWorker(worker)) takes \(describeLock(lock)), which it has held since step "
                + "\(step); it would wait for itself forever")
        parkForever(worker)
    }

    private func describeDeadlock() -> String {
        let blocked = (0..<workerCount).compactMap { worker -> String? in
            guard case .blocked(let lock) = statuses[worker] else { return nil }
            var holder = held[lock].map { "held by worker \($0.owner) since step \($0.step)" } ?? "held by nobody known"
            if held[lock] == nil, sleepsUntilWoken[worker], let lost = lostWakeUps[lock] {
                holder = "free since worker \(lost.worker) released it at step \(lost.step) without waking the "
                    + "threads asleep on it (a lost wake-up)"
            }
            return "\(describeWorker(worker)) waits for \(describeLock(lock)), \(holder)"
        }
        return "deadlock at step \(schedule.count): every unfinished worker is blocked: " + blocked.joined(separator: "; ")
    }

    private func describeLock(_ lock: ObjectIdentifier) -> String {
        let number = number(of: lock)
        return lockNames[lock].map { "lock L\(number) (\($0))" } ?? "lock L\(number)"
    }

    /// The lock's number in this run (first seen, first numbered; numbers name addresses, which freed locks may
    /// pass on).
    private func number(of lock: ObjectIdentifier) -> Int {
        if let number = lockNumbers[lock] { return number }
        let number = lockNumbers.count + 1
        lockNumbers[lock] = number
        return number
    }

    private func note(_ kind: TraceEvent.Kind, worker: Int) {
        guard trace != nil else { return }
        trace!.events.append(TraceEvent(step: max(0, schedule.count - 1), worker: worker, kind: kind))
    }

    // MARK: The runner's side

    /// Waits for every worker to arrive, then makes the first decision. Returns `false` if none arrived for `timeout`
    /// seconds while some were missing (the run is then abandoned); threads that keep arriving, however slowly on a
    /// busy machine, are waited for.
    func start(timeout: Double) -> Bool {
        parkingLot.lock()
        defer { parkingLot.unlock() }
        var seen = arrived
        var deadline = MonotonicClock.now + UInt64(timeout * 1e9)
        while arrived < workerCount {
            if arrived != seen {
                seen = arrived
                deadline = MonotonicClock.now + UInt64(timeout * 1e9)
                RoundProgress.note(-arrived)
            }
            if MonotonicClock.now >= deadline {
                abandon(
                    "only \(arrived) of \(workerCount) worker threads started, and none more for \(timeout) s (a limit "
                        + "of this process or machine, not of the system under test)")
                return false
            }
            parkingLot.wait(runnerParty, seconds: 0.05)
        }
        events &+= 1
        decide(-1, at: .start)
        return true
    }

    /// Waits until every worker finished or the run is abandoned. A running worker that reaches no schedule point
    /// for `blockedTimeout` seconds is blocked outside the scheduler's control: the run is abandoned.
    func awaitEnd(blockedTimeout: Double) -> End {
        parkingLot.lock()
        defer { parkingLot.unlock() }
        var seen = events
        var since = MonotonicClock.now
        while true {
            if finished == workerCount { return .completed }
            if mode == .abandoned { return .abandoned(stopReason ?? "the run was abandoned") }
            parkingLot.wait(runnerParty, seconds: min(0.1, blockedTimeout))
            RoundProgress.note(events)
            let now = MonotonicClock.now
            if events != seen {
                seen = events
                since = now
            } else if finished < workerCount, mode != .abandoned, Double(now - since) / 1e9 >= blockedTimeout {
                abandon(describeBlockedOutside(seconds: Double(now - since) / 1e9))
            }
        }
    }

    private func describeBlockedOutside(seconds: Double) -> String {
        let waited = String(format: "%.1f", seconds)
        if mode == .released {
            let unfinished = (0..<workerCount).filter { statuses[$0] != .finished }
            return "after the step limit released the workers, none reached a schedule point for \(waited) s: "
                + unfinished.map(describeWorker).joined(separator: "; ")
        }
        guard running >= 0 else { return "no worker ran for \(waited) s" }
        let last = lastPoints[running].map { "step \($0.step) (\($0.point.name))" } ?? "none"
        return Self.blockedOutsideMessage(
            describeWorker(running), lastPoint: last, waited: waited, paused: pausedInsideOperations(besides: running))
    }

    /// Workers the scheduler paused (ready, not running) after they entered the system in their current operation:
    /// one line each, with the point where they were paused.
    private func pausedInsideOperations(besides blocked: Int) -> [String] {
        (0..<workerCount).compactMap { worker in
            guard worker != blocked, statuses[worker] == .ready, let last = lastPoints[worker] else { return nil }
            switch last.point {
            case .start, .operation, .finish: return nil
            default: return "\(describeWorker(worker)) at step \(last.step) (\(last.point.name))"
            }
        }
    }

    // MARK: Results (read after the run)

    /// Whether the run was abandoned for a deadlock among announced locks (see ``ControlledRunner``), which is the
    /// system's failure, rather than for a worker blocked where the scheduler cannot see.
    var abandonedForDeadlock: Bool {
        parkingLot.lock()
        defer { parkingLot.unlock() }
        return deadlockedAmongLocks
    }

    /// What the run's scheduling produced: the schedule, counted steps, the step-limit report, the trace and the
    /// strategy's divergence.
    func results() -> (schedule: Schedule, choiceSteps: Int, stepLimitReport: String?, trace: ExecutionTrace?, divergence: ScheduleDivergence?) {
        parkingLot.lock()
        defer { parkingLot.unlock() }
        var trace = self.trace
        if trace != nil {
            for (lock, number) in lockNumbers {
                if let name = lockNames[lock] { trace!.lockNames[number] = name }
            }
        }
        return (schedule, choiceSteps, stepLimitReport, trace, strategy.divergence)
    }
}
