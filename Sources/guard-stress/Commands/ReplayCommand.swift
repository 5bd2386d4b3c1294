import FaultInjector
import FaultInjectorTools
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
        let startedAt = Date()
        guard reports.begin(
            unfinished: unfinishedReports(replayer, file, isolation, ProgressLog.stillRunning, signal: nil, startedAt),
            interrupted: { signal, name in
                unfinishedReports(
                    replayer, file, isolation, "stopped by \(name) before the replay of \(path) finished", signal: signal,
                    startedAt)
            })
        else { return .badInput }

        printPlan(path, loaded, replayer, isolation, recording: recording)

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
        // 1 whenever the oracle was violated; REPRODUCED only when the recorded failure itself came back.
        let exitCode: ExitCode = outcome.violated ? .violated : .passed
        let written = reports.write(
            json: StressReport(
                replay: outcome, file: file, path: path, target: replayer.target.name, runner: runnerChoice(file),
                isolation: isolation, exitCode: Int(exitCode.rawValue), seconds: seconds, createdAt: startedAt),
            junit: JUnitReport(
                replay: outcome, file: file, path: path, target: replayer.target.name, seconds: seconds,
                startedAt: startedAt))
        return ResultLine.print(verdict(outcome, file), exitCode: exitCode, reportsWritten: written)
    }

    /// The reports of a replay that has not finished: `incomplete` as it starts, `interrupted` when `signal` stops it.
    private static func unfinishedReports(
        _ replayer: Replayer, _ file: SeedFile, _ isolation: RoundIsolation, _ reason: String, signal: Int32?,
        _ startedAt: Date
    ) -> (json: StressReport, junit: JUnitReport) {
        let target = replayer.target.name
        let runner = runnerChoice(file)
        return (
            StressReport(
                unfinished: "replay", target: target, runner: runner, isolation: isolation, reason: reason, signal: signal),
            JUnitReport(unfinished: "replay", target: target, runner: runner, reason: reason, startedAt: startedAt))
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

    /// The verdict for the result line: for a file that records a failure, `REPRODUCED` only when a run failed with
    /// its recorded signature, `FAILED DIFFERENTLY` when runs failed otherwise, `NOT REPRODUCED` when the oracle held;
    /// for one that records none (nothing to reproduce: a scenario, or a round that never finished), `VIOLATED` or
    /// `PASSED`.
    private static func verdict(_ outcome: Replayer.Outcome, _ file: SeedFile) -> String {
        let runs = "\(outcome.runs) run\(outcome.runs == 1 ? "" : "s")"
        let seen = Set(outcome.signatures.filter { !$0.isEmpty }).sorted().joined(separator: "; ")
        let recorded = file.failure.signature
        if recorded.isEmpty || recorded == SeedFile.unfinishedSignature {
            guard outcome.violated else { return "PASSED (the oracle held in every run)" }
            let why = recorded.isEmpty
                ? "the file records no failure" : "the file was written before its round finished, so it records no failure"
            return "VIOLATED (\(seen) in \(outcome.violatedRuns) of \(runs); \(why) to compare with)"
        }
        if outcome.reproduced {
            return "REPRODUCED (the recorded failure came back in \(outcome.sameSignatureRuns) of \(runs))"
        }
        guard outcome.violated else { return "NOT REPRODUCED (the oracle held in every run)" }
        return "FAILED DIFFERENTLY (the oracle was violated in \(outcome.violatedRuns) of \(runs), with \(seen), but never "
            + "with the recorded signature \(recorded))"
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
