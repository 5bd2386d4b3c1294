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

    /// Where the seed files of failing interleavings go by default.
    static let defaultDirectory = "explore-seeds"

    /// Reads `path` (a seed file: its operations are the scenario) and makes the target it names, or `target`.
    static func load(_ path: String, target name: String?) throws -> ExploreInput {
        let file: SeedFile
        let scenario: Scenario
        do {
            file = try SeedFileStore.read(path)
            scenario = try file.makeScenario()
        } catch {
            throw Failure(message: "\(error)")
        }
        let targetName = name ?? file.target
        guard let target = TargetCatalog.make(targetName, diagnostics: CountingSink(keepsEvents: false)) else {
            throw Failure(message: TargetOption.refused(targetName).message)
        }
        return ExploreInput(scenario: scenario, target: target)
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
