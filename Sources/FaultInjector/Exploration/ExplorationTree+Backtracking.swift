extension ExplorationTree {
    /// Adds, for every race of the execution whose second step is new (at the branch or after), the workers to
    /// explore that reverse it.
    func addBacktracking(execution: ExploredExecution, path: [ExplorationNode], branch: Int) {
        guard mode.reduction else { return }
        let steps = Array(execution.exploredSteps)
        let order = HappensBefore(steps, objects: execution.objectWords.count, workers: workers, forRaces: true)
        for (first, second) in order.races() where second >= max(branch, 0) && first < path.count {
            let node = path[first]
            if let bound = mode.preemptionBound {
                let worker = steps[second].worker
                addBounded(worker, at: node, bound: bound)
                addBounded(worker, at: path[runStart(before: first, steps: steps)], bound: bound)
            } else {
                addSourceSetWorker(order.initials(ofRace: first, second), preferring: steps[second].worker, at: node)
            }
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
