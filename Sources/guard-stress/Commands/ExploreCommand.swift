import FaultInjector
import Foundation
import GuardCore

/// `guard-stress explore SCENARIO`: explores every class of interleavings of a scenario (dynamic partial-order
/// reduction) and answers with a proof, a failing interleaving written as a seed file (shrunk), or "not a proof".
enum ExploreCommand {
    static let options: Set<String> = [
        "--target", "--preemptions", "--jobs", "--json", "--out", "--max-executions", "--proof",
        "--shard",
    ]
    static let flags: Set<String> = [
        "--no-reduction", "--no-shrink", "--every-failure", "--quiet", "--force", "--help", "-h",
    ]

    static func run(_ words: [String]) throws -> ExitCode {
        let arguments = try ParsedArguments(words, options: options, flags: flags)
        if arguments.has("--help") || arguments.has("-h") {
            print(HelpText.explore)
            return .passed
        }
        let settings = try exploreSettings(arguments)
        if arguments.string("--proof") != nil {
            DeterministicHashing.ensure()
            return try ProofRun(arguments: arguments, settings: settings).run()
        }
        guard arguments.string("--shard") == nil else {
            throw UsageError("--shard splits a --proof run over machines; a scenario is explored whole")
        }
        guard arguments.positionals.count == 1 else {
            throw UsageError(
                arguments.positionals.isEmpty
                    ? "explore needs a scenario (a text scenario or a seed file), or --proof pairs|triples"
                    : "explore takes one scenario, not \(arguments.positionals.count)")
        }
        DeterministicHashing.ensure()
        return try ScenarioExploration(path: arguments.positionals[0], arguments: arguments, settings: settings).run()
    }

    /// The settings the options ask for.
    static func exploreSettings(_ arguments: ParsedArguments) throws -> ExplorationSettings {
        var settings = ExplorationSettings()
        settings.reduction = !arguments.has("--no-reduction")
        settings.stopsAtFirstViolation = !arguments.has("--every-failure")
        settings.preemptionBound = try arguments.integer("--preemptions", in: ExplorationSettings.preemptionBounds)
        settings.maxExecutions = try arguments.integer("--max-executions", in: 1...1_000_000_000)
        // Every available core: one scenario's executions, or a proof's whole scenarios, in child processes.
        let defaultJobs = AvailableCores.count
        settings.jobs = try arguments.integer("--jobs", in: 1...256) ?? defaultJobs
        if settings.jobs > 1 { settings.childExecutable = ChildProcessSettings.thisExecutable }
        return settings
    }

    /// Where the human-readable lines go: standard output, or standard error when the JSON report goes to standard
    /// output (`--json -`).
    static func lines(_ arguments: ParsedArguments) -> (String) -> Void {
        arguments.string("--json") == "-" ? { Terminal.printError($0) } : { print($0) }
    }

    /// The exit code of an answer.
    static func exitCode(_ answer: ExplorationAnswer) -> ExitCode {
        switch answer {
        case .complete, .completeUpToPreemptions: return .passed
        case .violation: return .violated
        case .notAProof: return .notAProof
        }
    }

    /// Said before a passing answer for three or more workers: the reduction is checked against every interleaving
    /// only for two, so such an answer is evidence, not a proof.
    static let manyWorkersNote =
        "  note: with three or more workers the reduction is not checked against every interleaving, so this answer is "
        + "thorough evidence, not a proof (the proofs use two workers; see Exploring every interleaving)"

    /// The answer's last line.
    static func resultLine(_ answer: ExplorationAnswer) -> String {
        switch answer {
        case .complete: return "RESULT: COMPLETE (no interleaving breaks the oracle)"
        case .completeUpToPreemptions(let bound):
            return "RESULT: COMPLETE UP TO \(bound) PREEMPTION\(bound == 1 ? "" : "S") (no interleaving within the "
                + "bound breaks the oracle; classes beyond it were not explored)"
        case .violation: return "RESULT: VIOLATION (exit 1)"
        case .notAProof: return "RESULT: NOT A PROOF (exit \(ExitCode.notAProof.rawValue))"
        }
    }

    /// Writes the JSON report to `--json` (a file, or `-` for standard output). Returns `false` if it could not.
    static func writeJSON(_ report: ExplorationReport, _ arguments: ParsedArguments, inputs: [String]) -> Bool {
        guard let path = arguments.string("--json") else { return true }
        do {
            let data = try report.encoded()
            if path == "-" {
                FileHandle.standardOutput.write(data)
                return true
            }
            let destination = try OutputPath.checkReport(
                path, option: "--json", kind: .explorationReport, force: arguments.has("--force"))
            ReportFiles.tell(try destination.write(data), what: "JSON report")
            return true
        } catch {
            Terminal.printError("guard-stress: cannot write the JSON report \(path): \(error)")
            return false
        }
    }

    /// Checks `--json` before anything runs (a bad path is a usage error, not a lost exploration).
    static func checkJSON(_ arguments: ParsedArguments, inputs: [String]) throws {
        guard let path = arguments.string("--json"), path != "-" else { return }
        try OutputPath.checkFile(path, option: "--json")
        for input in inputs { try OutputPath.checkNotInput(path, option: "--json", input: input) }
        _ = try OutputPath.checkReport(path, option: "--json", kind: .explorationReport, force: arguments.has("--force"))
    }
}
