/// The explorer's search state: the tree of states explored so far (completed subtrees dropped), the workers left
/// to explore from each, and the next execution to ask for.
///
/// With reduction it is source-set dynamic partial-order reduction with sleep sets (Abdulla, Aronis, Jonsson and
/// Sagonas, POPL 2014): after each execution, every race (two dependent steps of different workers with nothing
/// ordered between them) adds, at the state before the first step, a worker that starts an execution reversing it,
/// unless one already is there; a worker whose step was explored from a state sleeps in the executions explored after
/// it until a step dependent with its own runs. With a preemption bound it adds the race's second worker (or, if that
/// one cannot run there, every worker) and, conservatively, the same worker where the run containing the first step
/// began (as bounded DPOR must, Coons, Musuvathi and McKinley, OOPSLA 2013), and keeps no sleep sets. Without
/// reduction every worker that can run (within the bound) is explored from every state: every interleaving.
///
/// A tree may be one subtree of a larger search (``init(mode:workers:subtree:)``): it explores everything below one
/// request's branch, never asks for a state at or above it, and keeps the backtracking the races ask for there
/// (``outbox``) for the search that owns those states.
final class ExplorationTree {
    let mode: SearchMode
    let workers: Int
    private(set) var root: ExplorationNode?
    private var firstIssued = false
    /// For a subtree: the request whose branch it explores.
    let subtree: ExecutionRequest?
    /// For a subtree: the backtracking asked for at states at or above its branch, in the order found.
    var outbox: [BacktrackNote] = []

    /// A whole search, or with `subtree` the part of one below that request's branch.
    init(mode: SearchMode, workers: Int, subtree: ExecutionRequest? = nil) {
        self.mode = mode
        self.workers = workers
        self.subtree = subtree
    }

    /// The depth of the last state this tree does not own (a subtree's branch state), or -1.
    var ownedAbove: Int { (subtree?.prefix.count ?? 0) - 1 }

    /// Whether everything has been explored and nothing is running.
    var isComplete: Bool {
        root?.isComplete(bound: mode.preemptionBound) ?? false
    }

    // MARK: Asking for executions

    /// The next execution to run (the deepest state with a worker left to explore), or `nil` if none is available
    /// now (everything is explored, or the rest waits for executions still running).
    func nextRequest() -> ExecutionRequest? {
        guard let root else {
            if firstIssued { return nil }
            firstIssued = true
            return subtree ?? ExecutionRequest(prefix: [], checks: [], sleep: SleepSet(), usesSleepSets: mode.usesSleepSets)
        }
        guard
            let (node, worker) = deepestPending(from: root, besideRunning: false)
                ?? deepestPending(from: root, besideRunning: true)
        else { return nil }
        node.inFlight |= 1 << UInt64(worker)
        let path = node.path
        var prefix: [Int] = []
        var checks: [DecisionCheck] = []
        for (index, state) in path.enumerated() {
            var check = state.decision
            if index + 1 < path.count {
                let next = path[index + 1].viaWorker
                prefix.append(next)
                check.signature = state.children[next]!.signature
            } else {
                prefix.append(worker)
                check.signature = nil
            }
            checks.append(check)
        }
        var sleep = mode.usesSleepSets ? node.sleep : SleepSet()
        if mode.usesSleepSets {
            for child in node.children.values { sleep.insert(child.entry) }
        }
        return ExecutionRequest(prefix: prefix, checks: checks, sleep: sleep, usesSleepSets: mode.usesSleepSets)
    }

    /// The deepest state with a worker left to explore, and the worker. Unless `besideRunning`, states with a branch
    /// running are passed over: a sibling issued while another runs cannot have the other's step in its sleep set (it
    /// is known only once that execution returns), so it would repeat some of its classes. With several jobs the
    /// search asks for such a sibling only when nothing else is left to run; a subtree handed off whole
    /// (``handOff(_:)``) does not count, its step is known.
    private func deepestPending(from node: ExplorationNode, besideRunning: Bool) -> (ExplorationNode, Int)? {
        for worker in 0..<workers {
            if let next = node.children[worker]?.node, let found = deepestPending(from: next, besideRunning: besideRunning) {
                return found
            }
        }
        guard besideRunning || node.inFlight & ~node.handedOff == 0, node.depth > ownedAbove else { return nil }
        if let worker = node.firstPending(bound: mode.preemptionBound) { return (node, worker) }
        return nil
    }

    // MARK: Taking an execution in

    /// Takes in the report of the execution asked for with `request`: its new states join the tree, its races add
    /// workers to explore, and finished subtrees are dropped. A report with a problem (a divergence) only releases
    /// its branch.
    func merge(_ report: ExecutionReport, for request: ExecutionRequest) {
        let execution = report.execution
        let branch = request.prefix.count - 1
        guard report.problem == nil, let path = extend(with: execution, request: request) else {
            release(request)
            return
        }
        addBacktracking(execution: execution, path: path, branch: branch)
        prune(from: path.last!)
    }

    /// Hands the subtree below `request`'s branch, whose first execution was just taken in, to be explored whole
    /// elsewhere: its states here are dropped and the branch counts as running until the subtree comes back
    /// (``merge(subtree:notes:)``) or is released. Its step stays known, so siblings may be explored
    /// beside it. Returns `false` (and changes nothing) if that first execution already explored all of it.
    func handOff(_ request: ExecutionRequest) -> Bool {
        guard let node = state(before: request), let worker = request.prefix.last,
            let child = node.children[worker], !child.isComplete
        else { return false }
        child.node = nil
        node.inFlight |= 1 << UInt64(worker)
        node.handedOff |= 1 << UInt64(worker)
        return true
    }

    /// The state `request`'s branch starts from, if still in the tree.
    private func state(before request: ExecutionRequest) -> ExplorationNode? {
        guard var node = root else { return nil }
        for worker in request.prefix.dropLast() {
            guard let next = node.children[worker]?.node else { return nil }
            node = next
        }
        return node
    }

    /// Takes in the subtree below `request`'s branch (handed off with ``handOff(_:)``), explored to the end
    /// elsewhere: the branch is done (its step stays, so later siblings sleep on it), and the backtracking the
    /// subtree asked for at this tree's states (`notes`) is added in the order found.
    func merge(subtree request: ExecutionRequest, notes: [BacktrackNote]) {
        guard let root, let worker = request.prefix.last else { return }
        var path = [root]
        for step in request.prefix.dropLast() {
            guard let next = path.last!.children[step]?.node else { return }
            path.append(next)
        }
        let node = path.last!
        node.inFlight &= ~(1 << UInt64(worker))
        node.handedOff &= ~(1 << UInt64(worker))
        node.children[worker]?.isComplete = true
        for note in notes where note.depth < path.count { apply(note, at: path[note.depth]) }
        prune(from: node)
    }

    /// Releases the branch of `request` without taking anything in (its execution proves nothing).
    func release(_ request: ExecutionRequest) {
        guard let root, !request.prefix.isEmpty else { return }
        var node = root
        for worker in request.prefix.dropLast() {
            guard let next = node.children[worker]?.node else { return }
            node = next
        }
        node.inFlight &= ~(1 << UInt64(request.prefix.last!))
        node.handedOff &= ~(1 << UInt64(request.prefix.last!))
        prune(from: node)
    }

    /// Walks the execution's path, making the states after the branch. Returns every state of the path that is
    /// still in the tree, by depth (the states after the last explored step are not made).
    private func extend(with execution: ExploredExecution, request: ExecutionRequest) -> [ExplorationNode]? {
        let branch = request.prefix.count - 1
        let steps = execution.steps
        let explored = execution.sleepBlockedAt ?? steps.count
        guard !steps.isEmpty else { return nil }
        var touches = TouchIndex()
        if root == nil { root = makeNode(depth: 0, steps: steps, sleep: SleepSet(), parent: nil, via: -1) }
        var node = root!
        var path = [node]
        var sleep = SleepSet()
        for index in 0..<explored {
            let step = steps[index]
            let signature = StepSignature.of(step, at: index, touches: touches, execution: execution)
            touches.add(step, at: index)
            if index < branch {
                if index < ownedAbove, node.children[step.worker] == nil {
                    // A subtree's first execution: the states above its branch are made, owned by the search above.
                    let entry = SleepEntry(step: step, depth: index, touches: touches, execution: execution)
                    let next = makeNode(depth: index + 1, steps: steps, sleep: SleepSet(), parent: node, via: step.worker)
                    node.children[step.worker] = ExplorationChild(entry: entry, signature: signature, node: next)
                }
                guard let next = node.children[step.worker]?.node else { return nil }
                node = next
                path.append(node)
                continue
            }
            if index == branch {
                node.inFlight &= ~(1 << UInt64(step.worker))
                sleep = request.sleep
            } else {
                sleep = node.sleep
            }
            if mode.usesSleepSets { sleep = sleep.after(step, touches: touches, execution: execution) }
            let entry = SleepEntry(step: step, depth: index, touches: touches, execution: execution)
            let next: ExplorationNode? =
                index + 1 < explored
                ? makeNode(depth: index + 1, steps: steps, sleep: sleep, parent: node, via: step.worker) : nil
            node.children[step.worker] = ExplorationChild(entry: entry, signature: signature, node: next)
            node.backtrack |= 1 << UInt64(step.worker)
            guard let next else { break }
            node = next
            path.append(node)
        }
        return path
    }

    private func makeNode(
        depth: Int, steps: [ExploredStep], sleep: SleepSet, parent: ExplorationNode?, via: Int
    ) -> ExplorationNode {
        let step = steps[depth]
        let previous = parent?.preemptions ?? 0
        let preempted = depth > 0 && steps[depth - 1].isPreemption(choosing: steps[depth - 1].worker)
        let node = ExplorationNode(
            depth: depth,
            decision: DecisionCheck(point: step.point, current: step.current, runnable: step.runnable, signature: nil),
            preemptions: previous + (preempted ? 1 : 0), sleep: sleep, parent: parent, viaWorker: via)
        if !mode.reduction {
            for worker in ExplorationNode.workers(step.runnable) where node.allows(worker, bound: mode.preemptionBound) {
                node.backtrack |= 1 << UInt64(worker)
            }
        }
        return node
    }
}
