/// How the explorer searches.
struct SearchMode: Sendable, Hashable {
    /// Dynamic partial-order reduction (source sets with sleep sets); `false`: every interleaving, depth first.
    var reduction = true
    /// The most preemptions an execution may make; `nil` for none.
    var preemptionBound: Int?

    /// Whether sleep sets may be kept (only tests turn them off).
    var allowsSleepSets = true

    /// Sleep sets are kept only by the unbounded reduced search (with a bound, a sleeping worker's class may have
    /// been explored only past the bound).
    var usesSleepSets: Bool { reduction && preemptionBound == nil && allowsSleepSets }
}

/// One state of the exploration tree: the decision reached after `depth` steps of a prefix, what it looked like, and
/// the workers to explore from it.
final class ExplorationNode {
    /// Steps before this state.
    let depth: Int
    /// What the decision looked like (its signature is not used: steps carry theirs in ``ExplorationChild``).
    let decision: DecisionCheck
    /// Preemptions the prefix made before this state.
    let preemptions: Int
    /// The workers asleep when the state was first reached.
    let sleep: SleepSet
    /// The workers to explore from here, one bit each (explored ones included).
    var backtrack: UInt64 = 0
    /// The explored (or being explored) workers' steps from here.
    var children: [Int: ExplorationChild] = [:]
    /// Workers whose execution from here is running now, one bit each.
    var inFlight: UInt64 = 0
    /// Those of ``inFlight`` whose whole subtree is being explored elsewhere (in a child process).
    var handedOff: UInt64 = 0
    /// The state before, and the worker whose step led here.
    private(set) weak var parent: ExplorationNode?
    let viaWorker: Int

    init(
        depth: Int, decision: DecisionCheck, preemptions: Int, sleep: SleepSet, parent: ExplorationNode?,
        viaWorker: Int
    ) {
        self.depth = depth
        self.decision = decision
        self.preemptions = preemptions
        self.sleep = sleep
        self.parent = parent
        self.viaWorker = viaWorker
    }

    /// Whether `worker` can run here.
    func canRun(_ worker: Int) -> Bool {
        worker >= 0 && worker < 64 && decision.runnable & (1 << UInt64(worker)) != 0
    }

    /// Whether choosing `worker` here keeps within `bound` preemptions.
    func allows(_ worker: Int, bound: Int?) -> Bool {
        guard let bound else { return true }
        let current = decision.current
        let preempts = current >= 0 && current != worker && canRun(current)
        return preemptions + (preempts ? 1 : 0) <= bound
    }

    /// The workers of `mask`, lowest first.
    static func workers(_ mask: UInt64) -> [Int] {
        var workers: [Int] = []
        var rest = mask
        while rest != 0 {
            workers.append(rest.trailingZeroBitCount)
            rest &= rest - 1
        }
        return workers
    }

    /// The lowest worker still to explore from here: in the backtrack set, not explored or running, awake, able to
    /// run, within the bound.
    func firstPending(bound: Int?) -> Int? {
        var rest = backtrack & ~inFlight
        while rest != 0 {
            let worker = rest.trailingZeroBitCount
            if isPending(worker, bound: bound) { return worker }
            rest &= rest - 1
        }
        return nil
    }

    private func isPending(_ worker: Int, bound: Int?) -> Bool {
        children[worker] == nil && !sleep.contains(worker) && canRun(worker) && allows(worker, bound: bound)
    }

    /// Whether everything below this state has been explored.
    func isComplete(bound: Int?) -> Bool {
        inFlight == 0 && firstPending(bound: bound) == nil && children.values.allSatisfy(\.isComplete)
    }

    /// The states from the root to this one.
    var path: [ExplorationNode] {
        var nodes: [ExplorationNode] = [self]
        while let parent = nodes.last!.parent { nodes.append(parent) }
        return nodes.reversed()
    }
}

/// One explored step out of a state: the step (named relative to the state, to put it to sleep for the workers
/// explored after it) and the state it leads to, dropped once everything below is explored.
final class ExplorationChild {
    /// The step, as a sleep-set entry relative to the parent state.
    let entry: SleepEntry
    /// The step's signature, for re-executions to check.
    let signature: UInt64
    /// The state after the step; `nil` once complete (or when the execution ended or was blocked there).
    var node: ExplorationNode?
    /// Whether everything below it has been explored.
    var isComplete: Bool

    init(entry: SleepEntry, signature: UInt64, node: ExplorationNode?) {
        self.entry = entry
        self.signature = signature
        self.node = node
        self.isComplete = node == nil
    }
}
