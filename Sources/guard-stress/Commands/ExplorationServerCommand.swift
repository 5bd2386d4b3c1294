import FaultInjector

/// `guard-stress __serve-explorations`: hidden; the child side of `explore --jobs N` (see ``ExplorationServer``).
enum ExplorationServerCommand {
    /// The subcommand's name (not listed in the help: people never type it).
    static let name = "__serve-explorations"

    static func run(_ words: [String]) throws -> ExitCode {
        guard words.isEmpty else { throw UsageError("\(name) takes no arguments") }
        return ExplorationServer.serve() == 0 ? .passed : .badInput
    }
}
