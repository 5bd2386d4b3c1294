import FaultInjector
import Foundation
import GuardCore

/// `guard-stress replay FILE`: re-runs a seed file and reports whether (and how often) its failure came back.
enum ReplayCommand {
    static func run(_ words: [String]) throws -> ExitCode {
        let arguments = try ParsedArguments(words, options: ["--runs", "--target"], flags: ["--help", "-h"])
        if arguments.has("--help") || arguments.has("-h") {
            print(HelpText.replay)
            return .passed
        }
        guard arguments.positionals.count == 1 else {
            throw UsageError(
                arguments.positionals.isEmpty ? "replay needs a seed file" : "replay takes one seed file, not \(arguments.positionals.count)")
        }
        let path = arguments.positionals[0]
        let runs = try arguments.integer("--runs", in: 1...10_000) ?? 3
        DeterministicHashing.ensure()
        let file: SeedFile
        let outcome: Replayer.Outcome
        do {
            file = try SeedFileStore.read(path)
            var target: (any SystemUnderTest)?
            if let name = arguments.string("--target") {
                if let reason = TargetCatalog.unavailableReason(for: name) { throw UsageError(reason) }
                guard let named = TargetCatalog.make(name, diagnostics: CountingSink(keepsEvents: false)) else {
                    throw UsageError("--target must be one of \(TargetCatalog.names.joined(separator: ", ")), not '\(name)'")
                }
                target = named
            }
            let replayer = try Replayer(file: file, target: target)
            print("Replaying \(path): target \(replayer.target.name), runner \(runnerText(file)), seed \(file.seed), "
                + "\(file.scenario.workers) queues, \(file.operations == nil ? "operations regenerated from the seed" : "operations from the file")")
            if file.runner == "controlled" {
                if replayer.followsRecordedSchedule {
                    print("  following the recorded schedule (\(Format.count(file.schedule?.steps ?? 0)) steps)")
                } else if !replayer.replaysRecordedTarget {
                    print("  the recorded schedule belongs to target \(file.target); regenerating the schedule from the strategy and seed")
                } else {
                    print("  no recorded schedule; regenerating it from the strategy and seed")
                }
            }
            print("  recorded failure: \(file.failure.signature.isEmpty ? "(none)" : file.failure.signature)")
            outcome = try replayer.replay(runs: runs)
        } catch let error as SeedFileError {
            Terminal.printError("guard-stress: \(error)")
            return .badInput
        }
        for (index, signature) in outcome.signatures.enumerated() {
            print("  run \(index + 1): \(signature.isEmpty ? "oracle held" : "violated: \(signature)")")
        }
        print(
            "  reproduced in \(outcome.violatedRuns)/\(outcome.runs) runs; "
                + "with the recorded signature in \(outcome.sameSignatureRuns)/\(outcome.runs)")
        if let exact = outcome.exactRuns {
            print(
                exact == outcome.runs
                    ? "  exact replay: every run followed the schedule step for step and recorded the same history"
                    : "  NOT EXACT: \(outcome.runs - exact) of \(outcome.runs) runs did not match the recording")
            for mismatch in outcome.mismatches.prefix(5) { print("    \(mismatch)") }
        }
        if let report = outcome.lastViolation {
            print(SummaryPrinter.oracle(report).joined(separator: "\n"))
        }
        print(outcome.reproduced ? "RESULT: REPRODUCED (exit 1)" : "RESULT: NOT REPRODUCED (the oracle held in every run)")
        return outcome.reproduced ? .violated : .passed
    }

    /// `chaos`, `controlled (pct depth 3)`.
    private static func runnerText(_ file: SeedFile) -> String {
        guard let strategy = file.strategy else { return file.runner }
        return "\(file.runner) (\(strategy)\(file.depth.map { " depth \($0)" } ?? ""))"
    }
}
