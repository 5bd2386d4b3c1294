import GuardCore

/// How a lock's critical section counts in a step's footprint.
enum LockMode: UInt8, Sendable {
    /// It may change what the lock guards: a write of the lock.
    case exclusive
    /// It only reads what the lock guards and reaches no schedule point while holding it: a read of the lock.
    case shared
    /// Harness bookkeeping whose result does not depend on the order of its critical sections (facts keyed by
    /// unique ids, lists used as sets) and that reaches no schedule point while holding it: no access at all.
    case quiet
}

/// Records, for an explored controlled run, what every scheduling step touched. The cooperative scheduler calls it
/// with its parking lot's mutex held, from the running worker's thread: one step at a time.
///
/// A step's footprint is every announced lock it took, released or found held, and every lock-free access GuardCore
/// announced (``SchedulePoints/access(_:_:_:)``).
///
/// Lifetimes: whoever drops an object's last reference runs its deinit. Taking a strong reference (a weak one loaded,
/// a slot read) is a read of the object's life; its owner letting go of it (taken out of its slot, its owner's
/// deinit) and its deinit are writes; a drop is a read while the owner still holds the object (no drop can be the
/// last then, and such drops commute) and a write afterwards (which of two drops is the last decides who runs the
/// deinit). Code that knows when it drops a reference says so there (``SharedAccess/drop``); a reference announced as
/// held (``SharedAccess/hold``: a local the harness keeps for its operation) is dropped when the worker's operation
/// ends (Swift keeps a local to the end of its scope), in the step that ends the operation.
final class StepRecorder: @unchecked Sendable {
    private struct ObjectKey: Hashable {
        let identity: ObjectIdentifier
        let word: UInt8
    }

    private var numbers: [ObjectKey: Int32] = [:]
    /// The numbers given to each identity's words, so a new object at a freed one's address gets new numbers.
    private var numbersByIdentity: [ObjectIdentifier: [ObjectKey]] = [:]
    /// The name of each object made in the run (by whom, how many that maker made before): the same in every
    /// execution that runs the same steps, whatever the addresses.
    private var createdNames: [ObjectIdentifier: Int64] = [:]
    private var creations: [Int: Int64] = [:]
    private(set) var execution = ExploredExecution()
    /// The clock's tick count at the end of each step.
    private(set) var ticksAtStepEnd: [UInt64] = []
    /// The clock's tick count when the first step began (the ticks before were the set-up's).
    private(set) var ticksAtStart: UInt64 = 0
    private var pending: [StepAccess] = []
    private var held: [[Int32]]
    /// Objects whose owner let go of them (a write of their life): a drop of them may be the last.
    private var detached: Set<Int32> = []
    private var heldLocks: [ObjectIdentifier: LockMode] = [:]
    private let omitted: Set<UInt8>
    /// Locks guarding state of an omitted kind (``ScheduleHook/guards(_:_:)``): left out with it.
    private var omittedLocks: Set<ObjectIdentifier> = []
    private let ticks: @Sendable () -> UInt64

    /// A recorder for `workers` workers; accesses to words in `omitting`, and to the locks that guard them, are left
    /// out (only tests leave any out, to show what the relation needs). `ticks` reads the run clock's count without taking a tick.
    init(workers: Int, omitting: Set<UInt8>, ticks: @escaping @Sendable () -> UInt64) {
        held = Array(repeating: [], count: workers)
        omitted = omitting
        self.ticks = ticks
    }

    /// The step in progress accessed `word` of `object` (`hold`: took a strong reference the worker may keep).
    func access(_ object: ObjectIdentifier, _ word: SharedWord, _ kind: SharedAccess, worker: Int) {
        guard !omitted.contains(word.rawValue), !execution.steps.isEmpty else { return }
        let number = self.number(object, word.rawValue)
        switch kind {
        case .hold:
            if worker >= 0, worker < held.count, !held[worker].contains(number) { held[worker].append(number) }
            note(StepAccess(object: number, writes: false))
        case .drop:
            note(StepAccess(object: number, writes: detached.contains(number)))
        case .write:
            if word == .lifetime { detached.insert(number) }
            note(StepAccess(object: number, writes: true))
        case .read:
            note(StepAccess(object: number, writes: false))
        }
    }

    /// `worker` (-1: the runner, setting up) made `object`: from now on its words are new objects, named by their
    /// maker.
    func created(_ object: ObjectIdentifier, worker: Int) {
        let ordinal = creations[worker, default: 0]
        creations[worker] = ordinal + 1
        createdNames[object] = Int64(worker + 1) << 40 | ordinal
        for key in numbersByIdentity.removeValue(forKey: object) ?? [] { numbers[key] = nil }
        omittedLocks.remove(object)
    }

    /// `lock`, just made, guards state of kind `word`: if that kind is left out, so is the lock.
    func guards(_ lock: ObjectIdentifier, _ word: SharedWord) {
        if omitted.contains(word.rawValue) { omittedLocks.insert(lock) }
    }

    /// The step in progress took `lock` (or found it held: `mode` is then ``LockMode/exclusive``).
    func acquired(_ lock: ObjectIdentifier, mode: LockMode) {
        heldLocks[lock] = mode
        noteLock(lock, mode)
    }

    /// The step in progress found `lock` held by another worker (a read of who holds it, counted as a write: the
    /// order of the holder's acquire and this attempt decides who waits).
    func foundHeld(_ lock: ObjectIdentifier) {
        noteLock(lock, .exclusive)
    }

    /// The step in progress released `lock`.
    func released(_ lock: ObjectIdentifier) {
        let mode = heldLocks.removeValue(forKey: lock) ?? .exclusive
        noteLock(lock, mode, releasing: true)
    }

    /// Worker `worker` reached a decision at `point`: its step ends. Locks it holds across the decision count as
    /// written (a shared or quiet section that reaches a schedule point is no longer one); at the start of an
    /// operation and at the end the references it held are gone.
    func endStep(of worker: Int, at point: SchedulePoint) {
        guard !execution.steps.isEmpty, worker >= 0 else { return }
        for (lock, mode) in heldLocks where mode != .exclusive {
            heldLocks[lock] = .exclusive
            noteLock(lock, .exclusive)
        }
        if worker < held.count, point == .operation || point == .finish {
            for number in held[worker] { note(StepAccess(object: number, writes: detached.contains(number))) }
            held[worker].removeAll()
        }
        execution.steps[execution.steps.count - 1].accesses = pending
        pending.removeAll(keepingCapacity: true)
        ticksAtStepEnd.append(ticks())
    }

    /// A decision chose `chosen`; a new step begins.
    func beginStep(chosen: Int, current: Int, point: SchedulePoint, runnable: [Int]) {
        if execution.steps.isEmpty { ticksAtStart = ticks() }
        var mask: UInt64 = 0
        for worker in runnable where worker < 64 { mask |= 1 << UInt64(worker) }
        execution.steps.append(
            ExploredStep(
                worker: chosen, current: current, point: UInt8(ascii: point.code.unicodeScalars.first!),
                runnable: mask, accesses: []))
    }

    /// The footprint of the step in progress so far (for the strategy, which updates its sleep set with the step
    /// that just ended: ``lastStep``).
    var lastStep: ExploredStep? { execution.steps.last }

    /// The number of the object `identity`'s `word`, made at its first access.
    private func number(_ identity: ObjectIdentifier, _ word: UInt8) -> Int32 {
        let key = ObjectKey(identity: identity, word: word)
        if let number = numbers[key] { return number }
        let number = Int32(execution.objectWords.count)
        numbers[key] = number
        numbersByIdentity[identity, default: []].append(key)
        execution.objectWords.append(word)
        execution.objectNames.append(createdNames[identity] ?? -1)
        return number
    }

    private func noteLock(_ lock: ObjectIdentifier, _ mode: LockMode, releasing: Bool = false) {
        guard mode != .quiet, !omitted.contains(ObjectWord.lock), !omittedLocks.contains(lock), !execution.steps.isEmpty
        else { return }
        note(StepAccess(object: number(lock, ObjectWord.lock), writes: mode == .exclusive, releaseOnly: releasing))
    }

    /// Adds `access`, keeping one entry per object with the strongest access (a release and another access of one
    /// lock in one step make an access that is not only a release).
    private func note(_ access: StepAccess) {
        if let index = pending.firstIndex(where: { $0.object == access.object }) {
            if access.writes { pending[index].writes = true }
            if !access.releaseOnly { pending[index].releaseOnly = false }
            return
        }
        pending.append(access)
    }
}
