/// A concrete stress scenario: a configuration and, for each worker, the operations it performs in order.
public struct Scenario: Hashable, Sendable {
    /// The configuration the operations were drawn under.
    public let configuration: ScenarioConfiguration
    /// The seed the operations (and the workers' fault streams) derive from.
    public let seed: UInt64
    /// Each worker's operations.
    public let operations: [[Operation]]

    /// A scenario with explicit operations (from a seed file, or shrunk by hand).
    public init(configuration: ScenarioConfiguration, seed: UInt64, operations: [[Operation]]) {
        self.configuration = configuration
        self.seed = seed
        self.operations = operations
    }

    /// Draws every worker's operations from its own stream of `seed`.
    public init(configuration: ScenarioConfiguration, seed: UInt64) {
        self.configuration = configuration
        self.seed = seed
        self.operations = (0..<configuration.workers).map { worker in
            var generator = StreamSeeds.generator(run: seed, purpose: .operations, index: worker)
            return OperationDrawer(configuration: configuration).draw(
                count: configuration.operationsPerWorker, using: &generator)
        }
    }

    /// All operations across workers.
    public var operationCount: Int {
        operations.reduce(0) { $0 + $1.count }
    }

    /// Problems with operations that name slots the configuration does not have; empty when fine.
    public var problems: [String] {
        var problems: [String] = []
        if operations.count != configuration.workers {
            problems.append("the scenario lists \(operations.count) workers but its configuration has \(configuration.workers)")
        }
        for (worker, list) in operations.enumerated() {
            for (index, operation) in list.enumerated() {
                let used = operation.slotsUsed
                if used.controller >= configuration.controllers || used.object >= configuration.objects {
                    problems.append(
                        "worker \(worker) operation \(index) (\(operation)) names a slot beyond the configuration's "
                            + "\(configuration.controllers) controllers and \(configuration.objects) objects")
                    if problems.count >= 5 { return problems }
                }
            }
        }
        return problems
    }
}

/// Draws operations for one worker from its generator.
struct OperationDrawer {
    let configuration: ScenarioConfiguration

    func draw(count: Int, using generator: inout Xoshiro256StarStar) -> [Operation] {
        (0..<count).map { _ in draw(using: &generator) }
    }

    func draw(using g: inout Xoshiro256StarStar) -> Operation {
        let c = g.next(below: configuration.controllers)
        let o = g.next(below: configuration.objects)
        let anyKey = StressKey.allCases[g.next(below: StressKey.allCases.count)]
        switch g.pick(weights: configuration.mix.weights) {
        case 0: return .observe(controller: c, object: o, key: anyKey, options: options(initial: false, &g), action: action(&g))
        case 1: return .observe(controller: c, object: o, key: anyKey, options: options(initial: true, &g), action: action(&g))
        case 2: return .unobserve(controller: c, object: o, key: anyKey)
        case 3: return .doubleUnobserve(controller: c, object: o, key: anyKey)
        case 4: return .unobserveObject(controller: c, object: o)
        case 5: return .unobserveAll(controller: c)
        case 6: return .mutate(object: o, key: storedKey(&g))
        case 7: return .releaseObserver(controller: c)
        case 8: return .releaseController(controller: c)
        default: return .releaseObject(object: o)
        }
    }

    private func options(initial: Bool, _ g: inout Xoshiro256StarStar) -> StressOptions {
        var options: StressOptions = initial ? [.initial] : []
        if g.chance(configuration.optionProbability) { options.insert(.new) }
        if g.chance(configuration.optionProbability) { options.insert(.old) }
        if g.chance(configuration.optionProbability) { options.insert(.prior) }
        return options
    }

    private func action(_ g: inout Xoshiro256StarStar) -> HandlerAction {
        switch g.pick(weights: configuration.actions.weights) {
        case 0: return .none
        case 1: return .unobserveSelf
        case 2: return .unobserveAll
        case 3: return .releaseController
        case 4: return .mutate(object: g.next(below: configuration.objects), key: storedKey(&g))
        default:
            return .observe(
                object: g.next(below: configuration.objects),
                key: StressKey.allCases[g.next(below: StressKey.allCases.count)])
        }
    }

    private func storedKey(_ g: inout Xoshiro256StarStar) -> StressKey {
        StressKey.stored[g.next(below: StressKey.stored.count)]
    }
}
