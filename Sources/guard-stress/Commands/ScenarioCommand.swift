import FaultInjector
import Foundation

/// `guard-stress scenario FILE`: reads a text scenario or a seed file and prints it as a text scenario, every setting
/// it runs with that differs from the defaults spelled out: a check of a scenario written by hand (a mistake is
/// named with its line and column), and the way from a seed file back to a scenario to edit.
enum ScenarioCommand {
    static func run(_ words: [String]) throws -> ExitCode {
        let arguments = try ParsedArguments(words, options: [], flags: ["--help", "-h"])
        if arguments.has("--help") || arguments.has("-h") {
            print(HelpText.scenario)
            return .passed
        }
        guard arguments.positionals.count == 1 else {
            throw UsageError(
                arguments.positionals.isEmpty
                    ? "scenario needs a text scenario or a seed file" : "scenario takes one file, not \(arguments.positionals.count)")
        }
        let path = arguments.positionals[0]
        guard let loaded = ScenarioInput.load(path) else { return .badInput }
        let text: String
        do {
            text = try ScenarioFile.text(of: loaded.seedFile)
        } catch {
            Terminal.printError("guard-stress: \(error)")
            return .badInput
        }
        print("# " + summary(loaded))
        if !loaded.seedFile.failure.signature.isEmpty {
            print("# the seed file records the failure \(loaded.seedFile.failure.signature); a scenario records none")
        }
        print(text, terminator: "")
        return .passed
    }

    /// `race.scenario: a text scenario; 2 workers, 3 operations; slots c0, o0; runs controlled (random), seed 1`.
    static func summary(_ loaded: LoadedScenario) -> String {
        let scenario = loaded.scenario
        let configuration = scenario.configuration
        let controllers = (0..<configuration.controllers).map { "c\($0)" + (configuration.holdsWeakly(controller: $0) ? " (weak)" : "") }
        let objects = (0..<configuration.objects).map { "o\($0)" }
        let runner: String
        switch loaded.runner {
        case .chaos: runner = "chaos"
        case .controlled(let settings): runner = "controlled (\(settings.strategy))"
        }
        return "\((loaded.path as NSString).lastPathComponent): \(ScenarioInput.kind(loaded)); "
            + "\(scenario.operations.count) worker\(scenario.operations.count == 1 ? "" : "s"), "
            + "\(scenario.operationCount) operation\(scenario.operationCount == 1 ? "" : "s"); "
            + "slots \((controllers + objects).joined(separator: ", ")); target \(loaded.target); runs \(runner), seed \(scenario.seed)"
    }
}
