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

    /// Problems with the operation lists: a worker count other than the configuration's, a worker with more
    /// operations than `operationsPerWorker` (every limit derived from the configuration, like the controlled
    /// runner's step limit or the campaign's operation limit, assumes at most that many), and operations that name
    /// slots the configuration does not have; empty when fine.
    public var problems: [String] {
        var problems: [String] = []
        if operations.count != configuration.workers {
            problems.append("the scenario lists \(operations.count) workers but its configuration has \(configuration.workers)")
        }
        for (worker, list) in operations.enumerated() where list.count > configuration.operationsPerWorker {
            problems.append(
                "worker \(worker) lists \(list.count) operations but the configuration's operationsPerWorker is "
                    + "\(configuration.operationsPerWorker)")
            if problems.count >= 5 { return problems }
        }
        for (worker, list) in operations.enumerated() {
            for (index, operation) in list.enumerated() {
                if let problem = operation.problem {
                    problems.append("worker \(worker) operation \(index) (\(operation)): \(problem)")
                    if problems.count >= 5 { return problems }
                    continue
                }
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
