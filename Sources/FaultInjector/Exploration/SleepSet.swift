/// Where each object of one execution was touched, step by step, so that a step's objects can be named without
/// addresses: by the last place in a common prefix where the same object was touched.
///
/// Addresses differ from execution to execution (the allocator hands out other blocks), but two executions that run
/// the same first `d` steps touch the same objects there in the same order (the explorer checks it). So an object
/// touched before step `d` is named by its last touch there, the same in both; one not touched before step `d` is
/// *fresh*, and a fresh object can only be compared by its kind of word (it may be anything the prefix did not touch,
/// or a new object at an address a dead one had).
struct TouchIndex {
    /// For each object number, where it was touched: (step, position in the step's accesses), in order.
    private var touches: [[Int64]] = []

    /// Encodes a touch.
    static func position(step: Int, ordinal: Int) -> Int64 {
        Int64(step) << 20 | Int64(ordinal)
    }

    /// Notes the accesses of step `step`.
    mutating func add(_ step: ExploredStep, at index: Int) {
        for (ordinal, access) in step.accesses.enumerated() {
            let object = Int(access.object)
            if object >= touches.count { touches.append(contentsOf: repeatElement([], count: object + 1 - touches.count)) }
            touches[object].append(Self.position(step: index, ordinal: ordinal))
        }
    }

    /// The last touch of `object` before step `step`, or -1 (fresh).
    func lastTouch(of object: Int32, before step: Int) -> Int64 {
        let object = Int(object)
        guard object < touches.count else { return -1 }
        let limit = Self.position(step: step, ordinal: 0)
        let list = touches[object]
        var low = 0
        var high = list.count
        while low < high {
            let middle = (low + high) / 2
            if list[middle] < limit { low = middle + 1 } else { high = middle }
        }
        return low == 0 ? -1 : list[low - 1]
    }
}

/// A step's access with its object named without its address: by who made it in the run, if the object announced
/// that (``ExploredExecution/objectNames``), else as ``TouchIndex`` names objects relative to a prefix.
struct PortableAccess: Hashable, Sendable, Codable {
    /// The object's name by its maker, or -1 when it has none.
    var created: Int64
    /// For an object without a maker's name: its last touch in the prefix, or -1 when it is fresh.
    var name: Int64
    /// Its kind of word (``ObjectWord``).
    var word: UInt8
    /// Whether the step wrote it.
    var writes: Bool
    /// Whether the step only released it (see ``StepAccess/releaseOnly``).
    var releaseOnly: Bool
}

/// A worker that need not run from some state because an equivalent execution was or will be explored: its step
/// from the state where it was put to sleep, named relative to that state's prefix. It wakes (leaves the sleep set)
/// when a step dependent with it runs.
struct SleepEntry: Hashable, Sendable, Codable {
    /// The sleeping worker.
    var worker: Int
    /// The depth (number of steps) of the state the step was taken from.
    var depth: Int
    /// The step's accesses, relative to the first `depth` steps.
    var accesses: [PortableAccess]

    /// The entry for `step`, taken at depth `depth` of an execution whose touches are `touches`.
    init(step: ExploredStep, depth: Int, touches: TouchIndex, execution: ExploredExecution) {
        worker = step.worker
        self.depth = depth
        accesses = step.accesses.map { access in
            let created = execution.objectNames[Int(access.object)]
            return PortableAccess(
                created: created, name: created >= 0 ? -1 : touches.lastTouch(of: access.object, before: depth),
                word: execution.objectWords[Int(access.object)], writes: access.writes,
                releaseOnly: access.releaseOnly)
        }
    }

    /// Whether `step` (a step at depth `depth` or later of an execution sharing the first `depth` steps) is dependent
    /// with this entry's step (as races are: a lock's release depends on nothing, see ``StepAccess/releaseOnly``).
    func isDependent(with step: ExploredStep, touches: TouchIndex, execution: ExploredExecution) -> Bool {
        for access in step.accesses {
            let word = execution.objectWords[Int(access.object)]
            let created = execution.objectNames[Int(access.object)]
            var name: Int64?
            for mine in accesses
            where mine.word == word && (mine.writes || access.writes) && !mine.releaseOnly && !access.releaseOnly {
                if mine.created >= 0 || created >= 0 {
                    if mine.created == created { return true }
                    continue
                }
                if mine.name < 0 { return true }
                if name == nil { name = touches.lastTouch(of: access.object, before: depth) }
                if name == mine.name { return true }
            }
        }
        return false
    }
}

/// A set of sleeping workers (at most one entry per worker).
struct SleepSet: Sendable, Codable, Hashable {
    /// The entries.
    private(set) var entries: [SleepEntry] = []

    /// An empty set.
    init() {}

    /// A set of `entries`.
    init(_ entries: [SleepEntry]) {
        for entry in entries { insert(entry) }
    }

    /// Whether `worker` sleeps.
    func contains(_ worker: Int) -> Bool {
        entries.contains { $0.worker == worker }
    }

    /// Adds `entry` (replacing another entry of its worker).
    mutating func insert(_ entry: SleepEntry) {
        entries.removeAll { $0.worker == entry.worker }
        entries.append(entry)
    }

    /// The set after `step` ran: the entries independent with it stay.
    func after(_ step: ExploredStep, touches: TouchIndex, execution: ExploredExecution) -> SleepSet {
        var next = SleepSet()
        next.entries = entries.filter {
            $0.worker != step.worker && !$0.isDependent(with: step, touches: touches, execution: execution)
        }
        return next
    }
}
