import FaultInjector
import Foundation

/// `--in-process`, `--stall-timeout`, `--rounds-per-process`: where `run` and `replay` execute rounds; `--jobs`:
/// how many rounds `run` runs at once.
enum IsolationOptions {
    static let options: Set<String> = ["--stall-timeout", "--rounds-per-process"]
    static let flags: Set<String> = ["--in-process"]

    /// `--jobs N`: rounds at once, each in its own child process; by default the cores this process may use, or fewer
    /// when that many rounds of `operationsPerRound` operations would not fit in memory (``MemoryBudget``). With
    /// `--in-process` rounds run one at a time, so only `--jobs 1` goes with it. `limit` says why the default is below
    /// the core count, and warns when an explicit count exceeds what memory holds.
    static func jobs(
        _ arguments: ParsedArguments, isolation: RoundIsolation, operationsPerRound: Int
    ) throws -> (jobs: Int, limit: String?) {
        let jobs = try arguments.integer("--jobs", in: 1...Campaign.maximumJobs)
        guard isolation.childProcessSettings != nil else {
            if let jobs, jobs > 1 {
                throw UsageError(
                    "--jobs \(jobs) needs child processes: with --in-process rounds run one at a time in guard-stress "
                        + "itself (they would share the runtime's process-wide state); leave out --in-process or --jobs")
            }
            return (1, nil)
        }
        let available = MemoryBudget.availableBytes
        let fitting = MemoryBudget.jobs(fitting: operationsPerRound, in: available)
        let memory = available.map {
            "a round of \(Format.count(operationsPerRound)) operations needs about "
                + "\(gigabytes(MemoryBudget.roundBytes(operations: operationsPerRound))) of the \(gigabytes($0)) available"
        }
        if let jobs {
            return (jobs, jobs > fitting ? memory.map { "more than memory holds: \($0)" } : nil)
        }
        let cores = AvailableCores.count
        return cores > fitting ? (fitting, memory.map { "memory: \($0)" }) : (cores, nil)
    }

    private static func gigabytes(_ bytes: UInt64) -> String {
        String(format: "%.1f GB", Double(bytes) / 1e9)
    }

    /// ``RoundIsolation/automatic`` (child processes running this executable's hidden round server, registered at
    /// start-up), with `--stall-timeout` and `--rounds-per-process` applied, or in process with `--in-process`.
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
        guard var settings = RoundIsolation.automatic.childProcessSettings else { return .inProcess }
        if let stallTimeout { settings.stallTimeout = stallTimeout }
        settings.roundsPerProcess = roundsPerProcess
        return .childProcesses(settings)
    }
}
