/// Backtracking one race asks for at one state of a path: what ``ExplorationTree`` adds there, or, for a state a
/// subtree does not own, what it hands to the search that owns it.
enum BacktrackNote: Sendable, Equatable {
    /// Source sets: one of `initials` (preferably `preferred`) is to be explored at the state at `depth`.
    case sourceSet(depth: Int, initials: [Int], preferred: Int)
    /// Preemption-bounded: `worker` (or, if it cannot run there, every worker) at the state at `depth`.
    case bounded(depth: Int, worker: Int)

    /// The depth of the state it is for.
    var depth: Int {
        switch self {
        case .sourceSet(let depth, _, _), .bounded(let depth, _): depth
        }
    }
}

extension ExplorationTree {
    /// Adds, for every race of the execution whose second step is new (at the branch or after), the workers to
    /// explore that reverse it.
    func addBacktracking(execution: ExploredExecution, path: [ExplorationNode], branch: Int) {
        guard mode.reduction else { return }
        let steps = Array(execution.exploredSteps)
        let order = HappensBefore(steps, objects: execution.objectWords.count, workers: workers, forRaces: true)
        for (first, second) in order.races() where second >= max(branch, 0) && first < path.count {
            if mode.preemptionBound != nil {
                let worker = steps[second].worker
                note(.bounded(depth: first, worker: worker), on: path)
                note(.bounded(depth: runStart(before: first, steps: steps), worker: worker), on: path)
            } else {
                note(.sourceSet(depth: first, initials: order.initials(ofRace: first, second), preferred: steps[second].worker), on: path)
            }
        }
    }

    /// Adds `note` at its state of `path`, or keeps it in the outbox if this subtree does not own that state.
    private func note(_ note: BacktrackNote, on path: [ExplorationNode]) {
        if note.depth <= ownedAbove {
            outbox.append(note)
        } else {
            apply(note, at: path[note.depth])
        }
    }

    /// Adds the workers `note` asks for at `node` (the state at its depth).
    func apply(_ note: BacktrackNote, at node: ExplorationNode) {
        switch note {
        case .sourceSet(_, let initials, let preferred): addSourceSetWorker(initials, preferring: preferred, at: node)
        case .bounded(_, let worker): addBounded(worker, at: node, bound: mode.preemptionBound ?? Int.max)
        }
    }

    /// Source sets: unless one of `initials` is to be explored at `node` already, adds one (the race's second worker
    /// if it is one, else the lowest awake one); if none can run there, every worker that can.
    private func addSourceSetWorker(_ initials: [Int], preferring preferred: Int, at node: ExplorationNode) {
        guard !initials.contains(where: { node.backtrack & (1 << UInt64($0)) != 0 }) else { return }
        let candidates = initials.filter { node.canRun($0) }
        guard !candidates.isEmpty else {
            node.backtrack |= node.decision.runnable
            return
        }
        let awake = candidates.filter { !node.sleep.contains($0) }
        let chosen = awake.contains(preferred) ? preferred : awake.first ?? candidates[0]
        node.backtrack |= 1 << UInt64(chosen)
    }

    /// Bounded: adds `worker` at `node` if it can run there within the bound; if it cannot run there, every worker
    /// that can (within the bound).
    private func addBounded(_ worker: Int, at node: ExplorationNode, bound: Int) {
        if node.canRun(worker) {
            if node.allows(worker, bound: bound) { node.backtrack |= 1 << UInt64(worker) }
            return
        }
        for other in ExplorationNode.workers(node.decision.runnable) where node.allows(other, bound: bound) {
            node.backtrack |= 1 << UInt64(other)
        }
    }

    /// The state where the run of steps containing the step before `step` began: the latest earlier state at which
    /// the running worker changed (the start if none).
    private func runStart(before step: Int, steps: [ExploredStep]) -> Int {
        var current = step - 1
        while current > 0 {
            if steps[current].worker != steps[current - 1].worker { return current }
            current -= 1
        }
        return 0
    }

    /// Drops the subtrees that are now completely explored, from `node` up.
    func prune(from node: ExplorationNode) {
        var current: ExplorationNode? = node
        while let state = current {
            guard state.isComplete(bound: mode.preemptionBound) else { return }
            guard let parent = state.parent, let child = parent.children[state.viaWorker] else { return }
            child.isComplete = true
            child.node = nil
            current = parent
        }
    }
}
