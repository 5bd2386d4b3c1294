import FaultInjector
import Foundation
import GuardCore

/// `guard-stress explore --proof NAME`: explores every scenario of a ``ProofSuite`` against the guard (or
/// `--target`), stopping at the first that is not complete.
struct ProofRun {
    let arguments: ParsedArguments
    let settings: ExplorationSettings
    private let say: (String) -> Void

    init(arguments: ParsedArguments, settings: ExplorationSettings) {
        self.arguments = arguments
        self.settings = settings
        say = ExploreCommand.lines(arguments)
    }

    func run() throws -> ExitCode {
        let name = arguments.string("--proof") ?? ""
        guard let suite = ProofSuite.named(name) else {
            throw UsageError(
                "--proof must be one of \(ProofSuite.all.map(\.name).joined(separator: ", ")), not '\(name)'")
        }
        guard arguments.positionals.isEmpty else {
            throw UsageError("explore --proof takes no scenario file (the suite is its scenarios)")
        }
        let targetName = arguments.string("--target") ?? "guard"
        guard TargetCatalog.make(targetName, diagnostics: CountingSink(keepsEvents: false)) != nil else {
            throw TargetOption.refused(targetName)
        }
        try ExploreCommand.checkJSON(arguments, inputs: [])
        let shard = try Self.shard(arguments)
        let execution = ProofExecution(suite: suite, targetName: targetName, settings: settings, shard: shard)
        let count = execution.indexes.count
        let part = shard.map { " (shard \($0.index)/\($0.count): every \($0.count)th from the \($0.index)th)" } ?? ""
        say(
            "Proof \(suite.name)\(part): \(Format.count(count)) scenarios of 2 workers, up to "
                + "\(suite.maximumPerWorker) operations each from "
                + suite.operations.map(\.description).joined(separator: ", ") + "; target \(targetName); "
                + ExploreInput.describe(settings))
        let quiet = arguments.has("--quiet")
        let outcome = execution.run { done, total in
            guard !quiet, done % 50 == 0 || done == total else { return }
            Terminal.printError("[proof \(suite.name)] \(done)/\(total) scenarios")
        }
        return report(outcome, suite: suite, shard: shard, count: count, targetName: targetName)
    }

    /// `--shard I/N`: part I of N of the suite (every Nth scenario from the Ith), or `nil` without the option.
    static func shard(_ arguments: ParsedArguments) throws -> ProofShard? {
        guard let text = arguments.string("--shard") else { return nil }
        let parts = text.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2, let index = Int(parts[0]), let count = Int(parts[1]), count <= 10_000,
            let shard = ProofShard(index: index, of: count)
        else {
            throw UsageError("--shard must be I/N with 1 <= I <= N <= 10000 (part I of N), not '\(text)'")
        }
        return shard
    }

    private func report(
        _ outcome: ProofOutcome, suite: ProofSuite, shard: ProofShard?, count: Int, targetName: String
    ) -> ExitCode {
        var answer: ExplorationAnswer = settings.preemptionBound.map { .completeUpToPreemptions($0) } ?? .complete
        if let (index, failed) = outcome.firstIncomplete {
            answer = failed.answer
            say("  scenario \(index + 1) of the suite's \(suite.scenarios.count) is not complete:")
            for (worker, list) in suite.scenarios[index].operations.enumerated() {
                say("    worker \(worker): " + list.map(\.description).joined(separator: "; "))
            }
            say("    " + failed.summary)
            for example in failed.failure?.examples.prefix(3) ?? [] { say("    \(example)") }
        } else if outcome.scenarios < count {
            answer = .notAProof("only \(outcome.scenarios) of \(count) scenarios were explored")
        }
        let name = suite.name + (shard.map { " shard \($0.index)/\($0.count)" } ?? "")
        say(
            "  proof \(name): \(Format.count(outcome.scenarios)) scenarios, \(Format.count(outcome.classes)) "
                + "classes in \(Format.count(outcome.executions)) executions "
                + "(\(Format.count(outcome.sleepBlocked)) sleep-set blocked), \(Format.seconds(outcome.seconds)): "
                + Self.answerText(answer))
        say(ExploreCommand.resultLine(answer))
        let code = ExploreCommand.exitCode(answer)
        let total = outcome.total(answer: answer)
        let failure = total.failure.map {
            ExplorationReport.Failure(signature: $0.signature, examples: $0.examples, seedFile: nil, shrunkSeedFile: nil)
        }
        let report = ExplorationReport(
            outcome: total, scenario: "proof \(name)", target: targetName, settings: settings,
            scenarios: outcome.scenarios, failure: failure, exitCode: Int(code.rawValue))
        return ExploreCommand.writeJSON(report, arguments, inputs: []) ? code : .badInput
    }

    /// `complete, 0 violations, 0 divergences`, `violation SIGNATURE`, `not a proof: REASON`.
    static func answerText(_ answer: ExplorationAnswer) -> String {
        switch answer {
        case .complete: return "complete, 0 violations, 0 divergences"
        case .completeUpToPreemptions(let bound): return "complete up to \(bound) preemptions, 0 violations, 0 divergences"
        case .violation: return "violation"
        case .notAProof(let reason): return "not a proof: \(reason)"
        }
    }
}
