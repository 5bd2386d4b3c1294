import GuardCore

/// One access a step made to shared state, in its execution's own numbering of objects.
///
/// An object is one word of one object in memory (a lock, a registration's state, an object's lifetime...):
/// ``ExploredExecution/objectWords`` says which kind of word each number is. Two steps are dependent when they
/// access the same object and at least one of them writes it.
struct StepAccess: Hashable, Sendable, Codable {
    /// The object, numbered by first access within the execution.
    var object: Int32
    /// Whether the step wrote it (a read otherwise).
    var writes: Bool
    /// Whether the step only released it (a lock it took in an earlier step). A release orders the next acquire of
    /// its lock after it (happens-before), but is never in a race: while one worker holds a lock, another's acquire
    /// of it cannot run, so the two can never be swapped (the race to reverse is the two acquires').
    var releaseOnly = false

    /// Whether this access and `other` (of the same object) conflict: one of them writes, and, for a race, neither
    /// is a release.
    func conflicts(with other: StepAccess, forRaces: Bool) -> Bool {
        (writes || other.writes) && !(forRaces && (releaseOnly || other.releaseOnly))
    }
}

/// The kind of word an object number stands for: a ``SharedWord``'s raw value, or ``lock``.
enum ObjectWord {
    /// A lock that announces its acquires and releases (GuardCore's, or a ``ScheduledLock``).
    static let lock: UInt8 = 200
}

/// One scheduling step of an explored execution: at a decision, `worker` was chosen, and ran until the next
/// decision making `accesses`.
struct ExploredStep: Hashable, Sendable, Codable {
    /// The worker that ran the step.
    var worker: Int
    /// The worker that reached the decision (-1 at the start).
    var current: Int
    /// The code of the point where the decision was made (``SchedulePoint/code``).
    var point: UInt8
    /// The workers that could run at the decision, one bit each.
    var runnable: UInt64
    /// What the step touched, in order, each object once with its strongest access.
    var accesses: [StepAccess]

    /// Whether worker `worker` could run at the decision.
    func canRun(_ worker: Int) -> Bool {
        worker >= 0 && worker < 64 && runnable & (1 << UInt64(worker)) != 0
    }

    /// Whether choosing `chosen` at this decision preempts the worker that reached it (it could have gone on).
    func isPreemption(choosing chosen: Int) -> Bool {
        current >= 0 && chosen != current && canRun(current)
    }

    /// Whether this step and `other` touch a common object, one of them writing it (for races: and neither only
    /// releasing it).
    func conflicts(with other: ExploredStep, forRaces: Bool) -> Bool {
        for access in accesses {
            for theirs in other.accesses
            where theirs.object == access.object && access.conflicts(with: theirs, forRaces: forRaces) {
                return true
            }
        }
        return false
    }
}

/// One explored execution as its process recorded it: every step, the kinds of the objects its steps touched, and
/// where it stopped being new (sleep-set blocked).
struct ExploredExecution: Sendable, Codable {
    /// The steps in the order they ran.
    var steps: [ExploredStep] = []
    /// For each object number, its kind of word (see ``ObjectWord``).
    var objectWords: [UInt8] = []
    /// For each object number, the name of the object by who made it in the run (``StepRecorder``), or -1 for an
    /// object made before the run or one that does not announce itself.
    var objectNames: [Int64] = []
    /// The step at which every worker that could run was asleep (it would only repeat an explored class); the
    /// steps from there on are not part of the exploration. `nil` when the execution is new to the end.
    var sleepBlockedAt: Int?

    /// The steps the exploration counts: up to the sleep-blocked step, or all.
    var exploredSteps: ArraySlice<ExploredStep> {
        steps.prefix(sleepBlockedAt ?? steps.count)
    }
}
