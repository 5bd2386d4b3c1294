import FaultInjector
import FaultInjectorTools
import Foundation

/// `guard-stress mutants`: the planted-bug kill matrix.
enum MutantsCommand {
    static func run(_ words: [String]) throws -> ExitCode {
        let arguments = try ParsedArguments(
            words,
            options: Set(["--seeds", "--seed", "--budget", "--filter", "--runner", "--replays", "--out"])
                .union(IsolationOptions.options).union(ReportFiles.options),
            flags: Set(["--no-guard", "--help", "-h"]).union(IsolationOptions.flags).union(ReportFiles.flags))
        if arguments.has("--help") || arguments.has("-h") {
            print(HelpText.mutants)
            return .passed
        }
        guard arguments.positionals.isEmpty else {
            throw UsageError("mutants takes no positional arguments (got '\(arguments.positionals[0])')")
        }
        var settings = KillMatrix.Settings()
        settings.seeds = try arguments.integer("--seeds", in: 1...1_000) ?? settings.seeds
        settings.firstSeed = try arguments.seed("--seed") ?? settings.firstSeed
        settings.budget = try arguments.seconds("--budget") ?? settings.budget
        settings.replayRuns = try arguments.integer("--replays", in: 1...1_000) ?? settings.replayRuns
        settings.includesGuard = !arguments.has("--no-guard")
        settings.bugs = try bugs(arguments)
        settings.runners = try runners(arguments)
        settings.isolation = try IsolationOptions.isolation(arguments)
        if let out = arguments.string("--out") { settings.outputDirectory = out }
        // Checked before the campaign: a file in the way would lose every seed file it writes.
        try OutputPath.checkDirectory(settings.outputDirectory, option: "--out")
        let reports = try ReportFiles(arguments, seedDirectory: settings.outputDirectory)
        if settings.isolation.childProcessSettings == nil { DeterministicHashing.ensure() }

        Terminal.printError(
            "guard-stress: kill matrix of \(settings.bugs.count) planted bug\(settings.bugs.count == 1 ? "" : "s") on "
                + settings.runners.map(\.name).joined(separator: " and ")
                + ", \(settings.seeds) seed\(settings.seeds == 1 ? "" : "s") (from \(settings.firstSeed)) of up to "
                + "\(Format.seconds(settings.budget)) each"
                + (settings.isolation.childProcessSettings == nil ? ", in process" : ", rounds in child processes"))
        let startedAt = Date()
        let runner = settings.runners.first ?? .chaos
        guard
            reports.begin(
                unfinished: (
                    json: StressReport(
                        unfinished: "mutants", target: "planted bugs", runner: runner, isolation: settings.isolation,
                        reason: ProgressLog.stillRunning),
                    junit: JUnitReport(
                        unfinished: "mutants", target: "planted bugs", runner: runner, reason: ProgressLog.stillRunning,
                        startedAt: startedAt)),
                interrupted: { [isolation = settings.isolation] signal, name in
                    let reason = "stopped by \(name) before the kill matrix was complete"
                    return (
                        StressReport(
                            unfinished: "mutants", target: "planted bugs", runner: runner, isolation: isolation,
                            reason: reason, signal: signal),
                        JUnitReport(
                            unfinished: "mutants", target: "planted bugs", runner: runner, reason: reason,
                            startedAt: startedAt))
                })
        else { return .badInput }
        let result = KillMatrix(settings: settings).run { cell in
            Terminal.printError("  \(cell.target) / \(cell.runner): \(cell.caught ? "caught \(cell.caughtSeeds)/\(cell.seeds)" : "not caught")")
        }
        print(KillMatrixPrinter.table(result))
        let exitCode: ExitCode = result.passed ? .passed : .violated
        let written = reports.write(
            json: StressReport(killMatrix: result, isolation: settings.isolation, exitCode: Int(exitCode.rawValue), createdAt: startedAt),
            junit: JUnitReport(killMatrix: result, startedAt: startedAt))
        return ResultLine.print(
            "\(result.passed ? "PASS" : "FAIL") in \(Format.seconds(result.seconds))", exitCode: exitCode,
            reportsWritten: written)
    }

    /// `--filter NAME`: the planted bugs whose name contains NAME (all without it).
    private static func bugs(_ arguments: ParsedArguments) throws -> [PlantedBug] {
        guard let filter = arguments.string("--filter") else { return PlantedBug.allCases }
        let matching = PlantedBug.allCases.filter { $0.rawValue.contains(filter) }
        guard !matching.isEmpty else {
            throw UsageError(
                "--filter '\(filter)' matches no planted bug; they are \(TargetCatalog.plantedBugNames.joined(separator: ", "))")
        }
        return matching
    }

    /// `--runner chaos|controlled|both` (both by default); the controlled runner uses PCT depth 3.
    private static func runners(_ arguments: ParsedArguments) throws -> [RunnerChoice] {
        switch arguments.string("--runner") ?? "both" {
        case "both": return [.controlled(ControlledRunner.Settings()), .chaos]
        case "controlled": return [.controlled(ControlledRunner.Settings())]
        case "chaos": return [.chaos]
        case let other: throw UsageError("--runner must be one of chaos, controlled, both, not '\(other)'")
        }
    }
}
