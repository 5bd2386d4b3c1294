@testable import FaultInjector
import GuardCore
import XCTest

final class ExplorerDebugTests: XCTestCase {
    func run(_ workers: [[String]], target: any SystemUnderTest, omit: Set<UInt8> = [], reduction: Bool = true, bound: Int? = nil) {
        var settings = ExplorationSettings()
        settings.omittedWords = omit
        settings.reduction = reduction
        settings.preemptionBound = bound
        settings.maxExecutions = 20000
        let explorer = Explorer(scenario: GuardScenarios.make(workers), target: target, settings: settings)
        var search = ExplorationSearch(explorer: explorer, progress: { _ in })
        var steps = 0
        let outcome = search.run { request in
            let report = explorer.execute(request)
            steps = max(steps, report.execution.steps.count)
            return report
        }
        print("\(target.name) \(workers) omit=\(omit) red=\(reduction) bound=\(String(describing: bound)): \(outcome.summary) blocked=\(outcome.sleepBlocked) maxSteps=\(steps) \(outcome.seconds)s \(outcome.failure?.examples ?? [])")
    }

    func testDebugGuard() {
        let initial = [["observe c0 o0 k0 [initial,new]"], ["unobserve c0 o0 k0"]]
        run(initial, target: GuardScenarios.guardTarget)
        run(initial, target: GuardScenarios.guardTarget, omit: [SharedWord.registrationState.rawValue])
        let bug = PlantedBugTarget(name: "bug-initial-state-missing")!
        run(initial, target: bug)
        run(initial, target: bug, omit: [SharedWord.registrationState.rawValue])
        run([["observe c0 o0 k0 [initial,new]", "mutate o0 k0"], ["unobserve c0 o0 k0", "mutate o0 k0"]], target: GuardScenarios.guardTarget)
        run([["observe c0 o0 k0 []", "release-observer c0"], ["mutate o0 k0", "unobserve-all c0"]], target: GuardScenarios.guardTarget)
    }
}
