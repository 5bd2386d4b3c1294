import FaultInjector
import Foundation

// guard-stress: run a stress campaign against KVOGuard (or the raw runtime), replay seed files.
// Exit codes for every subcommand: 0 the oracle held, 1 the oracle was violated, 2 bad usage or a bad input file.

// A report written to a pipe whose reader went away fails (EPIPE) and is written beside it, instead of the signal
// ending guard-stress with the report lost.
signal(SIGPIPE, SIG_IGN)
// guard-stress serves rounds (its hidden subcommand), so every campaign, replay and shrink runs its rounds in child
// processes running it unless `--in-process` (``RoundIsolation/automatic``).
RoundIsolation.registerRoundServer(arguments: [RoundServerCommand.name])
let arguments = Array(CommandLine.arguments.dropFirst())
let exitCode: ExitCode
do {
    exitCode = try CommandDispatcher.run(arguments)
} catch let error as UsageError {
    Terminal.printError("guard-stress: \(error.message)")
    Terminal.printError("Run 'guard-stress --help' for usage.")
    exitCode = .badInput
}
exit(exitCode.rawValue)
