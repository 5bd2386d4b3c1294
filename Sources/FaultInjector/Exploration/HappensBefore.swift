/// The happens-before order of an explored execution's steps: program order within each worker, plus every pair of
/// dependent steps (a common object, one of them writing it) in the order they ran, closed transitively. Kept as one
/// vector clock per step: how many steps of each worker happen before it or are it.
///
/// In full (every conflict, a lock's release before its next acquire included) it gives the canonical order of a
/// class of equivalent executions. For races (``StepAccess/releaseOnly`` accesses left out: a release and the next
/// acquire of its lock are never both able to run, so the order to reverse is the two acquires') it gives the races
/// (two dependent steps of different workers with nothing ordered between them, the pairs whose order an explorer
/// must also try the other way round) and the workers that could start an execution that reverses one.
struct HappensBefore {
    /// The steps, in the order they ran.
    let steps: [ExploredStep]
    /// How many workers the clocks count.
    let workers: Int
    /// Each step's position among its own worker's steps.
    private(set) var local: [Int] = []
    /// Vector clocks, `workers` entries per step.
    private var clocks: [Int32] = []
    /// For each step and worker, the last earlier step of that worker dependent with it (-1 if none).
    private var lastDependent: [Int32] = []
    /// Each step's previous step of the same worker (-1 if none).
    private var previousOfWorker: [Int32] = []

    /// The order of `steps`, whose objects are numbered below `objects`, for `workers` workers; `forRaces` leaves
    /// releases out.
    init<Steps: Collection>(_ steps: Steps, objects: Int, workers: Int, forRaces: Bool = false)
    where Steps.Element == ExploredStep {
        self.steps = Array(steps)
        self.workers = workers
        build(objects: objects, forRaces: forRaces)
    }

    private mutating func build(objects: Int, forRaces: Bool) {
        let count = steps.count
        local = Array(repeating: 0, count: count)
        clocks = Array(repeating: 0, count: count * workers)
        lastDependent = Array(repeating: -1, count: count * workers)
        previousOfWorker = Array(repeating: -1, count: count)
        var lastAccess = Array(repeating: Int32(-1), count: objects * workers)
        var lastWrite = Array(repeating: Int32(-1), count: objects * workers)
        var lastOfWorker = Array(repeating: Int32(-1), count: workers)
        var counts = Array(repeating: 0, count: workers)
        for (index, step) in steps.enumerated() {
            let worker = step.worker
            local[index] = counts[worker]
            counts[worker] += 1
            previousOfWorker[index] = lastOfWorker[worker]
            for access in step.accesses where !(forRaces && access.releaseOnly) {
                let base = Int(access.object) * workers
                for other in 0..<workers where other != worker {
                    let candidate = access.writes ? lastAccess[base + other] : lastWrite[base + other]
                    if candidate > lastDependent[index * workers + other] {
                        lastDependent[index * workers + other] = candidate
                    }
                }
            }
            if lastOfWorker[worker] >= 0 { join(into: index, from: Int(lastOfWorker[worker])) }
            for other in 0..<workers where lastDependent[index * workers + other] >= 0 {
                join(into: index, from: Int(lastDependent[index * workers + other]))
            }
            clocks[index * workers + worker] = Int32(local[index] + 1)
            for access in step.accesses where !(forRaces && access.releaseOnly) {
                let slot = Int(access.object) * workers + worker
                lastAccess[slot] = Int32(index)
                if access.writes { lastWrite[slot] = Int32(index) }
            }
            lastOfWorker[worker] = Int32(index)
        }
    }

    private mutating func join(into target: Int, from source: Int) {
        for worker in 0..<workers {
            let value = clocks[source * workers + worker]
            if value > clocks[target * workers + worker] { clocks[target * workers + worker] = value }
        }
    }

    /// How many steps of `worker` happen before step `step` (or are it).
    func clock(_ step: Int, _ worker: Int) -> Int {
        Int(clocks[step * workers + worker])
    }

    /// Whether step `earlier` happens before step `later` (or is it).
    func happensBefore(_ earlier: Int, _ later: Int) -> Bool {
        clock(later, steps[earlier].worker) > local[earlier]
    }

    /// The races: for each step j and each other worker, the latest earlier step i of that worker dependent with j,
    /// unless i already happens before j's worker's step before j (then the order is forced by earlier steps). The
    /// order of each race is to be tried the other way round (Flanagan and Godefroid's choice of races). A race whose
    /// second worker could not run at i's decision (it waited for a lock a third worker held) is a race all the same:
    /// the race's initials say who must run first there, and when none of them can, every worker that can is tried.
    func races() -> [(first: Int, second: Int)] {
        var found: [(first: Int, second: Int)] = []
        for second in steps.indices {
            let worker = steps[second].worker
            let previous = Int(previousOfWorker[second])
            for other in 0..<workers where other != worker && lastDependent[second * workers + other] >= 0 {
                var candidate = Int(lastDependent[second * workers + other])
                while candidate >= 0 {
                    if previous >= 0, clock(previous, other) > local[candidate] { break }
                    if steps[candidate].worker == other,
                        steps[candidate].conflicts(with: steps[second], forRaces: true)
                    {
                        found.append((candidate, second))
                        break
                    }
                    candidate -= 1
                }
            }
        }
        return found
    }

    /// The workers whose first step in `notdep(first).second` happens after no other step of it: the steps after
    /// `first` that do not happen after it, then `second`. Scheduling any of them at `first`'s place starts an
    /// execution in which `second` runs before `first` (Abdulla et al.'s initials of the race).
    func initials(ofRace first: Int, _ second: Int) -> [Int] {
        var firstInSequence: [Int: Int] = [:]
        var initials: [Int] = []
        let candidates = ((first + 1)..<second).filter { !happensBefore(first, $0) } + [second]
        for step in candidates {
            let worker = steps[step].worker
            guard firstInSequence[worker] == nil else { continue }
            let independent = firstInSequence.allSatisfy { other, otherStep in clock(step, other) <= local[otherStep] }
            firstInSequence[worker] = step
            if independent { initials.append(worker) }
        }
        return initials
    }

    /// The canonical order of the class: the lexicographically smallest order of the steps (by worker number) that
    /// keeps the happens-before order. Every execution of one class has the same one.
    func canonicalOrder() -> [Int] {
        var byWorker = Array(repeating: [Int](), count: workers)
        for (index, step) in steps.enumerated() { byWorker[step.worker].append(index) }
        var emitted = Array(repeating: 0, count: workers)
        var order: [Int] = []
        order.reserveCapacity(steps.count)
        while order.count < steps.count {
            var progressed = false
            for worker in 0..<workers where emitted[worker] < byWorker[worker].count {
                let step = byWorker[worker][emitted[worker]]
                let ready = (0..<workers).allSatisfy { other in other == worker || clock(step, other) <= emitted[other] }
                guard ready else { continue }
                order.append(step)
                emitted[worker] += 1
                progressed = true
                break
            }
            precondition(progressed, "happens-before has a cycle")
        }
        return order
    }
}
