import FaultInjector
import Foundation
import GuardCore

/// `guard-stress replay FILE`: re-runs a seed file and reports whether (and how often) its failure came back.
enum ReplayCommand {
    static func run(_ words: [String]) throws -> ExitCode {
        let arguments = try ParsedArguments(
            words, options: Set(["--runs", "--target"]).union(IsolationOptions.options).union(ReportFiles.options),
            flags: Set(["--help", "-h"]).union(IsolationOptions.flags).union(ReportFiles.flags))
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
        let isolation = try IsolationOptions.isolation(arguments)
        if isolation.childProcessSettings == nil { DeterministicHashing.ensure() }
        let file: SeedFile
        let replayer: Replayer
        var target: (any SystemUnderTest)?
        do {
            file = try SeedFileStore.read(path)
            if let name = arguments.string("--target") {
                guard let named = TargetCatalog.make(name, diagnostics: CountingSink(keepsEvents: false)) else {
                    throw TargetOption.refused(name)
                }
                target = named
            }
            replayer = try Replayer(file: file, target: target)
        } catch let error as SeedFileError {
            Terminal.printError("guard-stress: \(error)")
            return .badInput
        }
        let reports = try ReportFiles(arguments, inputs: [path])
        let startedAt = Date()
        let targetName = replayer.target.name
        let runner = runnerChoice(file)
        guard
            reports.begin(
                unfinished: (
                    json: StressReport(
                        unfinished: "replay", target: targetName, runner: runner, isolation: isolation,
                        reason: ProgressLog.stillRunning),
                    junit: JUnitReport(
                        unfinished: "replay", target: targetName, runner: runner, reason: ProgressLog.stillRunning,
                        startedAt: startedAt)),
                interrupted: { signal, name in
                    let reason = "stopped by \(name) before the replay of \(path) finished"
                    return (
                        StressReport(
                            unfinished: "replay", target: targetName, runner: runner, isolation: isolation, reason: reason,
                            signal: signal),
                        JUnitReport(unfinished: "replay", target: targetName, runner: runner, reason: reason, startedAt: startedAt))
                })
        else { return .badInput }

        print("Replaying \(path): target \(replayer.target.name), runner \(runnerText(file)), seed \(file.seed), "
            + "\(file.scenario.workers) queues, \(file.operations == nil ? "operations regenerated from the seed" : "operations from the file")"
            + (isolation.childProcessSettings == nil ? ", in process" : ", each run in a child process"))
        if file.isControlled {
            if replayer.followsRecordedSchedule {
                print("  following the recorded schedule (\(Format.count(file.schedule?.steps ?? 0)) steps)")
            } else if !replayer.replaysRecordedTarget {
                print("  the recorded schedule belongs to target \(file.target); regenerating the schedule from the strategy and seed")
            } else {
                print("  no recorded schedule; regenerating it from the strategy and seed")
            }
        }
        let unfinished = file.failure.signature == SeedFile.unfinishedSignature
        print("  recorded failure: \(file.failure.signature.isEmpty ? "(none)" : file.failure.signature)"
            + (unfinished ? " (written before its round ran; the round never finished)" : ""))

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
        for (index, signature) in outcome.signatures.enumerated() {
            print("  run \(index + 1): \(signature.isEmpty ? "oracle held" : "violated: \(signature)")")
        }
        print(
            "  reproduced in \(outcome.violatedRuns)/\(outcome.runs) runs; "
                + "with the recorded signature in \(outcome.sameSignatureRuns)/\(outcome.runs)")
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
        if let report = outcome.lastViolation {
            print(SummaryPrinter.oracle(report).joined(separator: "\n"))
        }
        if let statistics = outcome.isolation { print(SummaryPrinter.isolation(statistics).joined(separator: "\n")) }
        // 1 whenever the oracle was violated; REPRODUCED only when the recorded failure itself came back.
        let exitCode: ExitCode = outcome.violated ? .violated : .passed
        let written = reports.write(
            json: StressReport(
                replay: outcome, file: file, path: path, target: targetName, runner: runner,
                isolation: isolation, exitCode: Int(exitCode.rawValue), seconds: seconds, createdAt: startedAt),
            junit: JUnitReport(
                replay: outcome, file: file, path: path, target: targetName, seconds: seconds,
                startedAt: startedAt))
        return ResultLine.print(verdict(outcome, file: file), exitCode: exitCode, reportsWritten: written)
    }

    /// `REPRODUCED (...)` only when a run failed with the file's recorded signature; `FAILED DIFFERENTLY (...)` when
    /// the oracle was violated, but never that way; `VIOLATED (...)` for a file that records no failure to compare
    /// with; `NOT REPRODUCED (...)` when the oracle held in every run.
    private static func verdict(_ outcome: Replayer.Outcome, file: SeedFile) -> String {
        let runs = "\(outcome.runs) run\(outcome.runs == 1 ? "" : "s")"
        if outcome.reproduced {
            return "REPRODUCED (the recorded failure came back in \(outcome.sameSignatureRuns) of \(runs))"
        }
        guard outcome.violated else { return "NOT REPRODUCED (the oracle held in every run)" }
        let seen = Set(outcome.signatures.filter { !$0.isEmpty }).sorted().joined(separator: "; ")
        let recorded = file.failure.signature
        if recorded.isEmpty || recorded == SeedFile.unfinishedSignature {
            let why = recorded.isEmpty
                ? "the file records no failure" : "the file was written before its round finished, so it records no failure"
            return "VIOLATED (\(seen) in \(outcome.violatedRuns) of \(runs); \(why) to compare with)"
        }
        return "FAILED DIFFERENTLY (the oracle was violated in \(outcome.violatedRuns) of \(runs), with \(seen), but never "
            + "with the recorded signature \(recorded))"
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
