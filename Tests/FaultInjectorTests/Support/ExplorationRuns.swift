@testable import FaultInjector
import GuardCore

/// Explorations for tests: the outcome together with every class's verdict, so two searches can be compared class
/// by class.
enum ExplorationRuns {
    /// What one search found.
    struct Search {
        let outcome: ExplorationOutcome
        /// Each class's canonical digest and signature, by class hash.
        let verdicts: [[UInt64]: ClassVerdict]
        /// Executions that ran each class (those not sleep-set blocked).
        let executionsPerClass: [[UInt64]: Int]
    }

    /// Explores `scenario` against `target` to the end (every failing class too) with `settings`.
    static func search(
        _ scenario: Scenario, against target: any SystemUnderTest, settings: ExplorationSettings = ExplorationSettings()
    ) -> Search {
        var settings = settings
        settings.stopsAtFirstViolation = false
        let explorer = Explorer(scenario: scenario, target: target, settings: settings)
        var search = ExplorationSearch(explorer: explorer, progress: { _ in })
        var perClass: [[UInt64]: Int] = [:]
        let outcome = search.run { request in
            let report = explorer.execute(request)
            if report.execution.sleepBlockedAt == nil { perClass[report.classHash, default: 0] += 1 }
            return report
        }
        return Search(outcome: outcome, verdicts: search.verdicts, executionsPerClass: perClass)
    }

    /// Settings for a search with or without reduction, with an optional preemption bound.
    static func settings(reduction: Bool = true, bound: Int? = nil) -> ExplorationSettings {
        var settings = ExplorationSettings()
        settings.reduction = reduction
        settings.preemptionBound = bound
        return settings
    }
}
