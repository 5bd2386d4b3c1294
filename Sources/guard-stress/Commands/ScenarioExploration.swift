import FaultInjector
import FaultInjectorTools
import Foundation
import GuardCore

/// One `guard-stress explore SCENARIO` run: load, explore, and for a violation write the seed file of the failing
/// interleaving and its shrunk version.
struct ScenarioExploration {
    let path: String
    let arguments: ParsedArguments
    let settings: ExplorationSettings
    private let say: (String) -> Void

    init(path: String, arguments: ParsedArguments, settings: ExplorationSettings) {
        self.path = path
        self.arguments = arguments
        self.settings = settings
        say = ExploreCommand.lines(arguments)
    }

    func run() throws -> ExitCode {
        let input: ExploreInput
        do {
            guard let loaded = try ExploreInput.load(path, target: arguments.string("--target")) else { return .badInput }
            input = loaded
        } catch let error as ExploreInput.Failure {
            Terminal.printError("guard-stress: \(error.message)")
            return .badInput
        }
        try ExploreCommand.checkJSON(arguments, inputs: [path])
        let directory = arguments.string("--out") ?? ExploreInput.defaultDirectory
        try OutputPath.checkDirectory(directory, option: "--out")

        let scenario = input.scenario
        say(
            "Exploring \(path): target \(input.target.name), \(scenario.configuration.workers) workers, "
                + "\(scenario.operationCount) operations; " + ExploreInput.describe(settings))
        let quiet = arguments.has("--quiet")
        let explorer = Explorer(scenario: scenario, target: input.target, settings: settings)
        let outcome = explorer.explore { progress in
            guard !quiet else { return }
            Terminal.printError(
                String(format: "[%6.1f s] ", progress.seconds)
                    + "\(Format.count(progress.executions)) executions, \(Format.count(progress.classes)) classes")
        }
        say("  " + outcome.summary)
        say(
            "  \(Format.count(outcome.executions)) execution\(outcome.executions == 1 ? "" : "s") (\(Format.count(outcome.sleepBlocked)) sleep-set blocked) in "
                + "\(Format.seconds(outcome.seconds)), \(Format.count(Int(outcome.executionsPerSecond))) executions/s")
        var failureReport: ExplorationReport.Failure?
        var code = ExploreCommand.exitCode(outcome.answer)
        if !settings.stopsAtFirstViolation, outcome.failingClasses > 0 {
            say(
                "  \(Format.count(outcome.failingClasses)) of \(Format.count(outcome.classes)) classes fail, "
                    + "\(Format.count(outcome.passingClasses)) pass; \(outcome.failures.count) distinct failure"
                    + (outcome.failures.count == 1 ? "" : "s"))
        }
        for failure in outcome.failures {
            let written = write(failure, explorer: explorer, description: input.description, directory: directory)
            failureReport = failureReport ?? written
            if written.seedFile == nil { code = .notAProof }
        }
        if case .notAProof(let reason) = outcome.answer { say("  not a proof: \(reason)") }
        if scenario.configuration.workers > 2, code == .passed { say(ExploreCommand.manyWorkersNote) }
        say(ExploreCommand.resultLine(code == .notAProof ? .notAProof("") : outcome.answer))
        let report = ExplorationReport(
            outcome: outcome, scenario: path, target: input.target.name, settings: settings, scenarios: 1,
            failure: failureReport, exitCode: Int(code.rawValue))
        return ExploreCommand.writeJSON(report, arguments, inputs: [path]) ? code : .badInput
    }

    /// Writes the seed file of `failure` into `directory` and, unless `--no-shrink`, its shrunk version; says what
    /// it wrote.
    private func write(
        _ failure: ExploredFailure, explorer: Explorer, description: String?, directory: String
    ) -> ExplorationReport.Failure {
        say("  failing interleaving: \(failure.signature)")
        var report = ExplorationReport.Failure(
            signature: failure.signature, examples: failure.examples, seedFile: nil, shrunkSeedFile: nil)
        guard var file = explorer.seedFile(for: failure) else {
            for example in failure.examples.prefix(3) { say("    \(example)") }
            say("  the failing interleaving did not fail again as an ordinary controlled run: no seed file written")
            return report
        }
        // The examples of the run the seed file records, whose names (c0, o0, #1) are the ones replay and explain use.
        report.examples = file.failure.examples
        for example in file.failure.examples.prefix(3) { say("    \(example)") }
        if let description { file.description = description + " " + (file.description ?? "") }
        do {
            report.seedFile = try SeedFileStore.write(file, into: directory, foundBy: "explore")
        } catch {
            Terminal.printError("guard-stress: could not write the seed file into \(directory): \(error)")
            return report
        }
        say("  wrote \(report.seedFile!) (replay it with: guard-stress replay \(report.seedFile!))")
        guard !arguments.has("--no-shrink") else { return report }
        report.shrunkSeedFile = shrink(file, name: (report.seedFile! as NSString).lastPathComponent, into: directory)
        let explained = report.shrunkSeedFile ?? report.seedFile!
        say("  explain it with: guard-stress explain \(explained)")
        return report
    }

    /// Shrinks `file` in this process and writes the result into `directory`; `nil` if nothing smaller failing
    /// was found or confirmed.
    private func shrink(_ file: SeedFile, name: String, into directory: String) -> String? {
        var shrinkSettings = ShrinkSettings()
        shrinkSettings.maximumSeconds = 120
        shrinkSettings.verificationRuns = 10
        // Candidates run in child processes (the default here, RoundIsolation.automatic), as `guard-stress shrink`
        // runs them: a candidate that crashes, or leaves a lock held that the world's teardown then waits for, costs a
        // child, not this exploration.
        guard let shrinker = try? Shrinker(file: file, fileName: name, settings: shrinkSettings),
            case .shrunk(let outcome) = shrinker.shrink(), outcome.verified
        else {
            say("  shrinking found nothing smaller that fails the same way")
            return nil
        }
        say("  shrunk: \(outcome.original) -> \(outcome.shrunk)")
        do {
            let written = try SeedFileStore.write(outcome.file, into: directory, foundBy: "explore")
            say("  wrote \(written) (the shrunk interleaving; replay it exactly with: guard-stress replay \(written))")
            return written
        } catch {
            Terminal.printError("guard-stress: could not write the shrunk seed file into \(directory): \(error)")
            return nil
        }
    }
}
