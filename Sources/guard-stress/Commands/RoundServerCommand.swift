import FaultInjector

/// `guard-stress __serve-rounds`: hidden; the child side of round isolation (see ``RoundServer``). `run` and
/// `replay` start guard-stress this way and talk to it over standard input and output.
enum RoundServerCommand {
    /// The subcommand's name (not listed in the help: people never type it).
    static let name = "__serve-rounds"

    static func run(_ words: [String]) throws -> ExitCode {
        guard words.isEmpty else { throw UsageError("\(name) takes no arguments") }
        return RoundServer.serve() == 0 ? .passed : .badInput
    }
}
