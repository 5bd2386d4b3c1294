/// A named set of small scenarios explored to the end, one after the other: every scenario of two workers, each
/// performing one to ``maximumPerWorker`` operations drawn from ``operations`` on one controller (`c0`, holding its
/// object strongly) and one object (`o0`). A pair and its mirror image (the workers swapped) have the same
/// interleavings, so each unordered pair is explored once.
///
/// `guard-stress explore --proof NAME` runs one against the guard: complete with no violation means that no
/// interleaving of any of these scenarios breaks the oracle.
public struct ProofSuite: Sendable, Hashable {
    /// The suite's name.
    public let name: String
    /// The operations a worker draws from.
    public let operations: [Operation]
    /// The most operations one worker performs.
    public let maximumPerWorker: Int

    /// Up to 2 operations each from observe `[]`, observe `[initial,new]`, unobserve, mutate, release-observer and
    /// unobserve-all (903 scenarios); `.ci/run` runs it.
    public static let pairs = ProofSuite(
        name: "pairs",
        operations: [
            .observe(controller: 0, object: 0, key: .k0, options: [], action: .none),
            .observe(controller: 0, object: 0, key: .k0, options: [.initial, .new], action: .none),
            .unobserve(controller: 0, object: 0, key: .k0), .mutate(object: 0, key: .k0),
            .releaseObserver(controller: 0), .unobserveAll(controller: 0),
        ],
        maximumPerWorker: 2)

    /// Up to 3 operations each from observe `[initial,new]`, unobserve, mutate and release-observer (3,570
    /// scenarios): the longer run.
    public static let triples = ProofSuite(
        name: "triples",
        operations: [
            .observe(controller: 0, object: 0, key: .k0, options: [.initial, .new], action: .none),
            .unobserve(controller: 0, object: 0, key: .k0), .mutate(object: 0, key: .k0),
            .releaseObserver(controller: 0),
        ],
        maximumPerWorker: 3)

    /// Every suite, by name.
    public static let all = [pairs, triples]

    /// The suite called `name`, if any.
    public static func named(_ name: String) -> ProofSuite? {
        all.first { $0.name == name }
    }

    /// A suite of `operations`, up to `maximumPerWorker` each.
    public init(name: String, operations: [Operation], maximumPerWorker: Int) {
        self.name = name
        self.operations = operations
        self.maximumPerWorker = maximumPerWorker
    }

    /// Every operation list one worker may perform, shortest first.
    var workerLists: [[Operation]] {
        var lists: [[Operation]] = []
        var layer: [[Operation]] = [[]]
        for _ in 0..<maximumPerWorker {
            layer = layer.flatMap { list in operations.map { list + [$0] } }
            lists += layer
        }
        return lists
    }

    /// The suite's scenarios: each unordered pair of worker lists once.
    public var scenarios: [Scenario] {
        let lists = workerLists
        var scenarios: [Scenario] = []
        for first in lists.indices {
            for second in first..<lists.count {
                scenarios.append(Self.scenario([lists[first], lists[second]]))
            }
        }
        return scenarios
    }

    /// A scenario of `workers` on one controller and one object.
    static func scenario(_ workers: [[Operation]]) -> Scenario {
        var configuration = ScenarioConfiguration()
        configuration.workers = workers.count
        configuration.operationsPerWorker = workers.map(\.count).max() ?? 1
        configuration.controllers = 1
        configuration.objects = 1
        configuration.weakHoldingEvery = 0
        configuration.mix = .none
        configuration.mix[.mutate] = 1
        configuration.actions = .nothing
        return Scenario(configuration: configuration, seed: 1, operations: workers)
    }
}

/// What a proof suite's exploration found.
public struct ProofOutcome: Sendable {
    /// The suite.
    public let suite: ProofSuite
    /// Scenarios explored.
    public let scenarios: Int
    /// Every explored scenario's outcome, in the suite's order.
    public let outcomes: [ExplorationOutcome]
    /// The suite index of each of ``outcomes``' scenarios.
    public let indexes: [Int]
    /// Wall-clock seconds.
    public let seconds: Double

    /// Classes over all scenarios.
    public var classes: Int { outcomes.reduce(0) { $0 + $1.classes } }
    /// Executions over all scenarios.
    public var executions: Int { outcomes.reduce(0) { $0 + $1.executions } }
    /// Sleep-set blocked executions over all scenarios.
    public var sleepBlocked: Int { outcomes.reduce(0) { $0 + $1.sleepBlocked } }
    /// Every scenario's counts added up, under `answer`, with the first failure.
    public func total(answer: ExplorationAnswer) -> ExplorationOutcome {
        ExplorationOutcome(
            answer: answer, classes: classes, executions: executions, sleepBlocked: sleepBlocked, seconds: seconds,
            failingClasses: outcomes.reduce(0) { $0 + $1.failingClasses },
            failure: outcomes.lazy.compactMap(\.failure).first, failures: outcomes.flatMap(\.failures))
    }

    /// The first scenario (its suite index) whose answer is not complete, with its outcome.
    public var firstIncomplete: (index: Int, outcome: ExplorationOutcome)? {
        outcomes.indices.first { !ProofExecution.isComplete(outcomes[$0]) }.map { (indexes[$0], outcomes[$0]) }
    }
}
