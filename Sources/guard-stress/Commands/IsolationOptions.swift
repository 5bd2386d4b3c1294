import FaultInjector
import Foundation

/// `--in-process`, `--stall-timeout`, `--rounds-per-process`: where `run` and `replay` execute rounds; `--jobs`:
/// how many rounds `run` runs at once.
enum IsolationOptions {
    static let options: Set<String> = ["--stall-timeout", "--rounds-per-process"]
    static let flags: Set<String> = ["--in-process"]

    /// `--jobs N`: rounds at once, each in its own child process; by default the cores this process may use. With
    /// `--in-process` rounds run one at a time, so only `--jobs 1` goes with it.
    static func jobs(_ arguments: ParsedArguments, isolation: RoundIsolation) throws -> Int {
        let jobs = try arguments.integer("--jobs", in: 1...Campaign.maximumJobs)
        guard isolation.childProcessSettings != nil else {
            if let jobs, jobs > 1 {
                throw UsageError(
                    "--jobs \(jobs) needs child processes: with --in-process rounds run one at a time in guard-stress "
                        + "itself (they would share the runtime's process-wide state); leave out --in-process or --jobs")
            }
            return 1
        }
        return jobs ?? AvailableCores.count
    }

    /// Child processes running this executable's hidden round server (the default), or in process with
    /// `--in-process`.
    static func isolation(_ arguments: ParsedArguments) throws -> RoundIsolation {
        // Shorter than this, a round's ordinary pauses (a sleep fault, the scheduler) read as a deadlock.
        let stallTimeout = try arguments.seconds("--stall-timeout", minimum: 0.1)
        let roundsPerProcess = try arguments.integer("--rounds-per-process", in: 1...1_000_000)
        if arguments.has("--in-process") {
            for option in options.sorted() where arguments.string(option) != nil {
                throw UsageError("\(option) does not apply with --in-process (rounds do not run in child processes)")
            }
            return .inProcess
        }
        var settings = ChildProcessSettings(executable: executablePath, arguments: [RoundServerCommand.name])
        if let stallTimeout { settings.stallTimeout = stallTimeout }
        settings.roundsPerProcess = roundsPerProcess
        return .childProcesses(settings)
    }

    /// This program's own executable.
    static var executablePath: String {
        #if os(Linux)
        if let resolved = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe") { return resolved }
        #endif
        return Bundle.main.executablePath ?? CommandLine.arguments[0]
    }
}
