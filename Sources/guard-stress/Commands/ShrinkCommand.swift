import FaultInjector
import FaultInjectorTools
import Foundation
import GuardCore

/// `guard-stress shrink FILE`: reduces a failing seed file to a minimal one with the same failure signature.
enum ShrinkCommand {
    static func run(_ words: [String]) throws -> ExitCode {
        let arguments = try ParsedArguments(
            words,
            options: Set(["--out", "--runs", "--max-candidates", "--max-seconds", "--verify"]).union(IsolationOptions.options),
            flags: Set(["--force", "--quiet", "--help", "-h"]).union(IsolationOptions.flags))
        if arguments.has("--help") || arguments.has("-h") {
            print(HelpText.shrink)
            return .passed
        }
        guard arguments.positionals.count == 1 else {
            throw UsageError(
                arguments.positionals.isEmpty ? "shrink needs a seed file" : "shrink takes one seed file, not \(arguments.positionals.count)")
        }
        let path = arguments.positionals[0]
        let settings = try settings(arguments)
        let output = try SeedFileOutput(for: path, suffix: "shrunk", command: "shrink", arguments)
        if settings.isolation.childProcessSettings == nil { DeterministicHashing.ensure() }
        guard let shrinker = shrinker(path, settings) else { return .badInput }
        let file = shrinker.file
        // Quiet: the result and where it went, nothing about how (no progress, policy or operation list).
        let quiet = arguments.has("--quiet")
        printPlan(path, file, settings, quiet: quiet)
        let result = shrinker.shrink { progress in
            guard !quiet else { return }
            Terminal.printError(
                String(format: "[%6.1f s, %5d candidates] ", progress.seconds, progress.candidates)
                    + "\(progress.note)  (now \(progress.size))")
        }
        guard case .shrunk(let outcome) = result else {
            if case .notReproduced(let failure) = result { print("  \(failure.description)") }
            if !file.isControlled {
                print("  a chaos race may need more runs to show: try a larger --runs (now \(settings.runsPerCandidate))")
            }
            print("RESULT: NOT REPRODUCED (nothing to shrink; no file written) (exit 1)")
            return .violated
        }
        printOutcome(outcome, quiet: quiet)
        return write(outcome, to: output, quiet: quiet)
    }

    /// `--runs`, `--max-candidates`, `--max-seconds`, `--verify` and the isolation options.
    private static func settings(_ arguments: ParsedArguments) throws -> ShrinkSettings {
        var settings = ShrinkSettings()
        settings.runsPerCandidate = try arguments.integer("--runs", in: ShrinkSettings.runsPerCandidateRange) ?? settings.runsPerCandidate
        settings.maximumCandidates = try arguments.integer("--max-candidates", in: 1...10_000_000) ?? settings.maximumCandidates
        settings.maximumSeconds = try arguments.seconds("--max-seconds") ?? settings.maximumSeconds
        settings.verificationRuns = try arguments.integer("--verify", in: 0...10_000) ?? settings.verificationRuns
        settings.isolation = try IsolationOptions.isolation(arguments)
        return settings
    }

    /// The shrinker for the file at `path`; `nil` after printing why it cannot be shrunk.
    private static func shrinker(_ path: String, _ settings: ShrinkSettings) -> Shrinker? {
        guard let loaded = ScenarioInput.load(path) else { return nil }
        do {
            let file = loaded.seedFile
            if file.failure.signature.isEmpty {
                Terminal.printError("guard-stress: " + noFailureAdvice(path, loaded))
                return nil
            }
            if file.failure.signature == SeedFile.unfinishedSignature {
                Terminal.printError("guard-stress: " + unfinishedRoundAdvice(path))
                return nil
            }
            return try Shrinker(file: file, fileName: (path as NSString).lastPathComponent, settings: settings)
        } catch {
            Terminal.printError("guard-stress: \(error)")
            return nil
        }
    }

    /// What is shrunk and how: the file, its failure, and (unless quiet) the candidate policy, isolation and budget.
    private static func printPlan(_ path: String, _ file: SeedFile, _ settings: ShrinkSettings, quiet: Bool) {
        print("Shrinking \(path): target \(file.target), runner \(runnerText(file)), seed \(file.seed)")
        print("  recorded failure: \(file.failure.signature)")
        guard !quiet else { return }
        print("  " + candidatePolicy(file, settings).joined(separator: "\n  "))
        print(
            settings.isolation.childProcessSettings == nil
                ? "  candidates run in this process (--in-process): a crash or trap of the target ends the shrinker"
                : "  each candidate runs in a child process: a crash, trap or hang is the candidate's verdict")
        print("  budget: \(Format.count(settings.maximumCandidates)) candidates or \(Format.seconds(settings.maximumSeconds))")
    }

    /// The shrunk file's sizes, race verdict, cost and verification.
    private static func printOutcome(_ outcome: ShrinkOutcome, quiet: Bool) {
        print("  original: \(outcome.original)")
        print("  shrunk:   \(outcome.shrunk)")
        print("  \(outcome.race.summary)")
        if let explored = outcome.explored { print("  \(explored.summary)") }
        print(
            "  \(Format.count(outcome.candidates)) candidates, \(Format.count(outcome.runs)) runs in "
                + Format.seconds(outcome.seconds))
        if !quiet, let statistics = outcome.isolation { print(SummaryPrinter.isolation(statistics).joined(separator: "\n")) }
        if let budget = outcome.budgetExhausted {
            print("  stopped early: \(budget) ran out; the file is the smallest failing run found by then")
        }
        if outcome.file.shrunk?.scheduleFromStrategy == false {
            print(
                "  the schedule was found by guiding the scheduler: only the recorded schedule replays it (the strategy "
                    + "and seed do not regenerate it)")
        }
        if let verification = outcome.verification {
            print(verificationLine(verification))
            for mismatch in verification.mismatches.prefix(3) { print("    \(mismatch)") }
        } else if outcome.verificationRuns > 0 {
            print("  verification: the replays of the shrunk file could not run")
        }
    }

    /// Writes the shrunk file (a file that did not verify is never written under the name of a shrunk file: it says
    /// so in its name and in its `shrunk.verified` field) and prints the result line.
    private static func write(_ outcome: ShrinkOutcome, to output: SeedFileOutput, quiet: Bool) -> ExitCode {
        let written: String
        do {
            written = try outcome.verified ? output.write(outcome.file) : output.writeUnverified(outcome.file)
        } catch {
            Terminal.printError("guard-stress: could not write \(output.path): \(error.localizedDescription)")
            return .badInput
        }
        print(outcome.verified ? "  wrote \(written)" : "  wrote \(written) (UNVERIFIED: not the shrunk file of a confirmed failure)")
        if !quiet { printOperations(outcome.scenario) }
        guard outcome.verified else {
            print("RESULT: NOT CONFIRMED (the shrunk file did not reproduce every time; kept as \(written)) (exit 1)")
            return .violated
        }
        print("RESULT: SHRUNK (explain it with: guard-stress explain \(written)) (exit 0)")
        return .passed
    }

    /// The shrunk operations, one worker a line, when they are few enough to read; else how many (the file has them).
    private static func printOperations(_ scenario: Scenario) {
        let count = scenario.operations.reduce(0) { $0 + $1.count }
        guard count <= operationsListed else {
            print("  operations: \(Format.count(count)) (too many to list here; guard-stress explain tells the run)")
            return
        }
        print("  operations:")
        for (worker, list) in scenario.operations.enumerated() {
            print("    worker \(worker): " + (list.isEmpty ? "(none)" : list.map(\.description).joined(separator: "; ")))
        }
    }

    /// The most operations listed after a shrink.
    static let operationsListed = 50

    /// `  verified: replayed 20 times: the signature came back in 20/20, exactly in 20/20`.
    private static func verificationLine(_ verification: Replayer.Outcome) -> String {
        var line = "  verified: replayed \(verification.runs) times: the signature came back in "
            + "\(verification.sameSignatureRuns)/\(verification.runs)"
        let finished = verification.finishedRuns
        if let exact = verification.exactRuns, finished > 0 { line += ", exactly in \(exact)/\(finished)" }
        if let reason = verification.exactnessNotChecked, finished > 0 { line += "; exactness NOT CHECKED: \(reason)" }
        if verification.crashedRuns > 0 {
            line += "; \(verification.crashedRuns) \(verification.crashedRuns == 1 ? "run's process" : "runs' processes") "
                + "died (a crash has no history to compare with the recording)"
        }
        return line
    }

    /// Why a `.running.json` file (failure `unfinished`) cannot be shrunk, and how to get one that can: no run shows
    /// the signature `unfinished`, so every candidate would be judged not to fail.
    private static func unfinishedRoundAdvice(_ path: String) -> String {
        "\(path) is the seed file of a round that never finished (failure \"\(SeedFile.unfinishedSignature)\": its "
            + "process died before the round's verdict), which cannot be shrunk, since no run shows that failure; "
            + "replay it to get its verdict (guard-stress replay \(path)), or shrink the seed file written after a "
            + "finished round (run without --in-process, so a crash or hang is its round's verdict)"
    }

    /// Why a file that records no failure cannot be shrunk yet, and how to get one that records the failure it shows.
    private static func noFailureAdvice(_ path: String, _ loaded: LoadedScenario) -> String {
        "\(path) records no failure (\(ScenarioInput.kind(loaded)) says only what to run), so there is nothing to "
            + "shrink yet: find its failure with guard-stress explore \(path), or run it with guard-stress replay \(path) "
            + "--record (which writes the first failing run), then shrink the file that writes"
    }

    /// How candidates are judged, and what that means for confidence.
    private static func candidatePolicy(_ file: SeedFile, _ settings: ShrinkSettings) -> [String] {
        if file.isControlled {
            return [
                "each candidate: one run with the file's strategy and seed, and if that passes one guided by the "
                    + "smallest failing schedule so far; a controlled run is deterministic, so one run decides, and "
                    + "each kept candidate's schedule is recorded"
            ]
        }
        let runs = settings.runsPerCandidate
        let miss = { (p: Double) in String(format: "%.1f%%", 100 * ShrinkSettings.missProbability(showingIn: p, runs: runs)) }
        return [
            "each candidate: up to \(runs) chaos \(runs == 1 ? "run" : "runs"), failing at the first run with the signature "
                + "(the chaos runner replays operations, not interleavings)",
            "confidence: a candidate whose failure shows in 50% of runs is wrongly kept out with probability \(miss(0.5)), "
                + "in 10% of runs \(miss(0.1)); raise --runs for rare races (a wrongly kept-out candidate only makes the "
                + "result less small, never wrong: every kept candidate did fail)",
        ]
    }

    /// `chaos`, `controlled (pct depth 3)`.
    static func runnerText(_ file: SeedFile) -> String {
        guard let strategy = file.strategy else { return file.runner }
        return "\(file.runner) (\(strategy)\(file.depth.map { " depth \($0)" } ?? ""))"
    }
}
