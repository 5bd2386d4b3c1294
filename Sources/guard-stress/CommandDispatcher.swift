/// Picks the subcommand and runs it.
enum CommandDispatcher {
    static func run(_ arguments: [String]) throws -> ExitCode {
        guard let first = arguments.first else { return try RunCommand.run([]) }
        switch first {
        case "-h", "--help", "help":
            guard arguments.count > 1 else {
                print(HelpText.overview)
                return .passed
            }
            guard let topic = HelpText.topic(arguments[1]) else {
                throw UsageError(
                    "no help for '\(arguments[1])': there is no such command or topic (the commands are run, replay, "
                        + "shrink, explain, explore, scenario, mutants, bench; the topic scenario is the scenario format)")
            }
            print(topic)
            return .passed
        case "run":
            return try RunCommand.run(Array(arguments.dropFirst()))
        case "replay":
            return try ReplayCommand.run(Array(arguments.dropFirst()))
        case "shrink":
            return try ShrinkCommand.run(Array(arguments.dropFirst()))
        case "explain":
            return try ExplainCommand.run(Array(arguments.dropFirst()))
        case "scenario":
            return try ScenarioCommand.run(Array(arguments.dropFirst()))
        case "mutants":
            return try MutantsCommand.run(Array(arguments.dropFirst()))
        case "bench":
            return try BenchCommand.run(Array(arguments.dropFirst()))
        case "explore":
            return try ExploreCommand.run(Array(arguments.dropFirst()))
        case ExplorationServerCommand.name:
            return try ExplorationServerCommand.run(Array(arguments.dropFirst()))
        case RoundServerCommand.name:
            return try RoundServerCommand.run(Array(arguments.dropFirst()))
        default:
            if first.hasPrefix("-") { return try RunCommand.run(arguments) }
            throw UsageError("unknown subcommand '\(first)'")
        }
    }
}
