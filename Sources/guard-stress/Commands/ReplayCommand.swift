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
            print("Replaying \(path): target \(replayer.target.name), runner \(file.runner), seed \(file.seed), "
                + "\(file.scenario.workers) queues, \(file.operations == nil ? "operations regenerated from the seed" : "operations from the file")")
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
        if let report = outcome.lastViolation {
            print(SummaryPrinter.oracle(report).joined(separator: "\n"))
        }
        print(outcome.reproduced ? "RESULT: REPRODUCED (exit 1)" : "RESULT: NOT REPRODUCED (the oracle held in every run)")
        return outcome.reproduced ? .violated : .passed
    }
}
