import FaultInjector
import Foundation
import GuardCore

/// `guard-stress replay FILE`: re-runs a seed file and reports whether (and how often) its failure came back.
enum ReplayCommand {
    static func run(_ words: [String]) throws -> ExitCode {
        let arguments = try ParsedArguments(
            words, options: Set(["--runs", "--target", "--out"]).union(IsolationOptions.options).union(ReportFiles.options),
            flags: Set(["--record", "--help", "-h"]).union(IsolationOptions.flags).union(ReportFiles.flags))
        if arguments.has("--help") || arguments.has("-h") {
            print(HelpText.replay)
            return .passed
        }
        guard arguments.positionals.count == 1 else {
            throw UsageError(
                arguments.positionals.isEmpty
                    ? "replay needs a seed file or a scenario" : "replay takes one seed file, not \(arguments.positionals.count)")
        }
        let path = arguments.positionals[0]
        let recording = arguments.has("--record")
        if arguments.string("--out") != nil, !recording { throw UsageError("--out names the file --record writes; add --record") }
        // Checked before any run: a recorded failure must have somewhere to go.
        let output = recording ? try SeedFileOutput(for: path, suffix: "recorded", command: "replay --record", arguments) : nil
        let runs = try arguments.integer("--runs", in: 1...10_000) ?? 3
        let isolation = try IsolationOptions.isolation(arguments)
        if isolation.childProcessSettings == nil { DeterministicHashing.ensure() }
        guard let loaded = ScenarioInput.load(path) else { return .badInput }
        let file = loaded.seedFile
        guard let replayer = try makeReplayer(file, arguments, recording: recording) else { return .badInput }
        let reports = try ReportFiles(arguments, inputs: [path])

        printPlan(path, loaded, replayer, isolation, recording: recording)

        let startedAt = Date()
        let start = DispatchTime.now().uptimeNanoseconds
        let outcome: Replayer.Outcome
        do {
            if let settings = isolation.childProcessSettings {
                outcome = try replayer.replay(runs: runs, isolatedBy: settings)
            } else {
                outcome = try replayer.replay(runs: runs)
            }
        } catch let error as SeedFileError {
            Terminal.printError("guard-stress: \(error)")
            return .badInput
        } catch {
            Terminal.printError("guard-stress: the replay could not run: \(error)")
            return .badInput
        }
        let seconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
        printRuns(outcome, file)
        if let report = outcome.lastViolation {
            print(SummaryPrinter.oracle(report).joined(separator: "\n"))
        }
        if let statistics = outcome.isolation { print(SummaryPrinter.isolation(statistics).joined(separator: "\n")) }
        if let output, !record(outcome, to: output) { return .badInput }
        printVerdict(outcome, file)
        let exitCode: ExitCode = outcome.reproduced ? .violated : .passed
        let written = reports.write(
            json: StressReport(
                replay: outcome, file: file, path: path, target: replayer.target.name, runner: runnerChoice(file),
                isolation: isolation, exitCode: Int(exitCode.rawValue), seconds: seconds, createdAt: startedAt),
            junit: JUnitReport(
                replay: outcome, file: file, path: path, target: replayer.target.name, seconds: seconds,
                startedAt: startedAt))
        return written ? exitCode : .badInput
    }

    /// The replayer of `file`, against `--target` if given, recording if asked; `nil` after saying why not.
    private static func makeReplayer(_ file: SeedFile, _ arguments: ParsedArguments, recording: Bool) throws -> Replayer? {
        var target: (any SystemUnderTest)?
        if let name = arguments.string("--target") {
            guard let named = TargetCatalog.make(name, diagnostics: CountingSink(keepsEvents: false)) else {
                throw TargetOption.refused(name)
            }
            target = named
        }
        do {
            var replayer = try Replayer(file: file, target: target)
            replayer.recordsFailure = recording
            return replayer
        } catch {
            Terminal.printError("guard-stress: \(error)")
            return nil
        }
    }

    /// What is about to be replayed, how, and what it records.
    private static func printPlan(
        _ path: String, _ loaded: LoadedScenario, _ replayer: Replayer, _ isolation: RoundIsolation, recording: Bool
    ) {
        let file = loaded.seedFile
        print("Replaying \(path)\(loaded.isText ? " (a text scenario)" : ""): target \(replayer.target.name), runner \(runnerText(file)), seed \(file.seed), "
            + "\(file.scenario.workers) queues, \(file.operations == nil ? "operations regenerated from the seed" : "operations from the file")"
            + (isolation.childProcessSettings == nil ? ", in process" : ", each run in a child process"))
        if file.isControlled {
            if replayer.followsRecordedSchedule {
                print("  following the recorded schedule (\(Format.count(file.schedule?.steps ?? 0)) steps)")
            } else if !replayer.replaysRecordedTarget, file.schedule != nil {
                print("  the recorded schedule belongs to target \(file.target); regenerating the schedule from the strategy and seed")
            } else {
                print("  no recorded schedule; regenerating it from the strategy and seed")
            }
        }
        let unfinished = file.failure.signature == SeedFile.unfinishedSignature
        print("  recorded failure: \(file.failure.signature.isEmpty ? "(none" + (recording ? ": --record writes the first failing run)" : ")") : file.failure.signature)"
            + (unfinished ? " (written before its round ran; the round never finished)" : ""))
    }

    /// Each run's signature, how many reproduced, and whether they matched the recording.
    private static func printRuns(_ outcome: Replayer.Outcome, _ file: SeedFile) {
        for (index, signature) in outcome.signatures.enumerated() {
            print("  run \(index + 1): \(signature.isEmpty ? "oracle held" : "violated: \(signature)")")
        }
        if file.failure.signature.isEmpty {
            print("  violated in \(outcome.violatedRuns)/\(outcome.runs) runs (the file records no failure to compare with)")
        } else {
            print(
                "  reproduced in \(outcome.violatedRuns)/\(outcome.runs) runs; "
                    + "with the recorded signature in \(outcome.sameSignatureRuns)/\(outcome.runs)")
        }
        if let exact = outcome.exactRuns {
            let finished = outcome.finishedRuns
            if finished == 0 {
                print("  every run's process died, so no run could be compared with the recording")
            } else if exact == finished {
                print(
                    "  exact replay: every run\(outcome.crashedRuns > 0 ? " that finished" : "") followed the schedule "
                        + "step for step and recorded the same history")
            } else {
                print("  NOT EXACT: \(finished - exact) of \(finished) runs did not match the recording")
            }
            for mismatch in outcome.mismatches.prefix(5) { print("    \(mismatch)") }
        } else if let reason = outcome.exactnessNotChecked {
            // Never worded like the exact-replay line: CI greps for that one.
            print("  exactness NOT CHECKED: \(reason)")
            if !outcome.mismatches.isEmpty {
                print("  and \(outcome.mismatches.count) of \(outcome.finishedRuns) runs diverged from the recorded schedule")
            }
            for mismatch in outcome.mismatches.prefix(5) { print("    \(mismatch)") }
        }
    }

    /// The result line: REPRODUCED or NOT for a file that records a failure; for one that records none (nothing to
    /// reproduce), VIOLATED or PASSED.
    private static func printVerdict(_ outcome: Replayer.Outcome, _ file: SeedFile) {
        if file.failure.signature.isEmpty {
            print(outcome.reproduced ? "RESULT: VIOLATED (exit 1)" : "RESULT: PASSED (the oracle held in every run)")
        } else {
            print(outcome.reproduced ? "RESULT: REPRODUCED (exit 1)" : "RESULT: NOT REPRODUCED (the oracle held in every run)")
        }
    }

    /// `--record`: writes the first failing run to `output`; `false` after saying why it could not.
    private static func record(_ outcome: Replayer.Outcome, to output: SeedFileOutput) -> Bool {
        guard let failure = outcome.recordedFailure else {
            print("  nothing to record: the oracle held in every run (no file written)")
            return true
        }
        do {
            let written = try output.write(failure)
            let run = (outcome.verdicts.firstIndex { !$0.passed } ?? 0) + 1
            print("  recorded run \(run)'s failure \(failure.failure.signature) in \(written)"
                + (failure.schedule != nil ? " with the schedule it took" : ""))
            print("  shrink it with: guard-stress shrink \(written)")
            return true
        } catch {
            Terminal.printError("guard-stress: could not write \(output.path): \(error.localizedDescription)")
            return false
        }
    }

    /// `chaos`, `controlled (pct depth 3)`.
    private static func runnerText(_ file: SeedFile) -> String {
        guard let strategy = file.strategy else { return file.runner }
        return "\(file.runner) (\(strategy)\(file.depth.map { " depth \($0)" } ?? ""))"
    }

    /// The file's runner (already validated by reading the file).
    private static func runnerChoice(_ file: SeedFile) -> RunnerChoice {
        (try? file.makeRunnerChoice()) ?? .chaos
    }
}
