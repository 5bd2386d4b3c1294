import FaultInjector
import Foundation
import GuardCore

/// What `explore` explores: a scenario read from a file, and the target to explore it against.
struct ExploreInput {
    /// Why the input cannot be explored: one message.
    struct Failure: Error {
        let message: String
    }

    let scenario: Scenario
    let target: any SystemUnderTest
    /// The scenario's own description (a text scenario's `description` line), carried into the seed files written.
    let description: String?

    /// Where the seed files of failing interleavings go by default.
    static let defaultDirectory = "explore-seeds"

    /// Reads `path` (a text scenario, or a seed file: its operations are the scenario) and makes the target it
    /// names, or `target`. `nil` after printing why the file cannot be used (for a mistake in a text scenario, its
    /// line with a caret under the column).
    static func load(_ path: String, target name: String?) throws -> ExploreInput? {
        guard let loaded = ScenarioInput.load(path) else { return nil }
        let targetName = name ?? loaded.target
        guard let target = TargetCatalog.make(targetName, diagnostics: CountingSink(keepsEvents: false)) else {
            throw Failure(message: TargetOption.refused(targetName).message)
        }
        return ExploreInput(scenario: loaded.scenario, target: target, description: loaded.description)
    }

    /// `partial-order reduction (source sets, sleep sets), no preemption bound, 2 jobs`.
    static func describe(_ settings: ExplorationSettings) -> String {
        var parts: [String] = []
        parts.append(settings.reduction ? "partial-order reduction (source sets, sleep sets)" : "no reduction (every interleaving)")
        parts.append(settings.preemptionBound.map { "at most \($0) preemption\($0 == 1 ? "" : "s")" } ?? "no preemption bound")
        parts.append(settings.jobs == 1 ? "in this process" : "\(settings.jobs) jobs")
        if let limit = settings.maxExecutions { parts.append("at most \(Format.count(limit)) executions") }
        return parts.joined(separator: ", ")
    }
}
