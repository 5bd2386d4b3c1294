@testable import FaultInjector
import GuardCore

/// Hand-written scenarios on one controller (`c0`) and one object (`o0`), from operation texts as seed files write
/// them.
enum GuardScenarios {
    /// A scenario whose worker `w` performs `workers[w]` in order.
    static func make(_ workers: [[String]], controllers: Int = 1, objects: Int = 1) -> Scenario {
        var configuration = ScenarioConfiguration()
        configuration.workers = workers.count
        configuration.operationsPerWorker = max(1, workers.map(\.count).max() ?? 1)
        configuration.controllers = controllers
        configuration.objects = objects
        configuration.weakHoldingEvery = 0
        configuration.mix = OperationMix.none
        configuration.mix[.mutate] = 1
        configuration.actions = HandlerActionMix.nothing
        let operations = workers.map { texts in
            texts.map { text -> Operation in
                guard let operation = Operation(text) else { preconditionFailure("not an operation: \(text)") }
                return operation
            }
        }
        let scenario = Scenario(configuration: configuration, seed: 1, operations: operations)
        precondition(scenario.problems.isEmpty, scenario.problems.joined(separator: "; "))
        return scenario
    }

    /// The guard's target, its diagnostics counted and dropped.
    static var guardTarget: any SystemUnderTest {
        GuardTarget(diagnostics: CountingSink(keepsEvents: false))
    }
}
