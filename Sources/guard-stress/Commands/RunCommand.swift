import FaultInjector
import FaultInjectorTools
import Foundation
import GuardCore

/// `guard-stress run`: a campaign, its summary, and (for the guard) what the raw runtime would have done.
enum RunCommand {
    static func run(_ words: [String]) throws -> ExitCode {
        let arguments = try ParsedArguments(
            words,
            options: Set([
                "--seed", "--queues", "--ops", "--ops-per-queue", "--duration", "--target", "--objects", "--controllers",
                "--out", "--max-seed-files", "--runner", "--strategy", "--depth", "--max-steps", "--profile", "--mix",
                "--progress", "--scenario", "--jobs",
            ]).union(IsolationOptions.options).union(ReportFiles.options),
            flags: Set(["--no-faults", "--no-compare", "--stop-at-first-failure", "--help", "-h"]).union(IsolationOptions.flags)
                .union(ReportFiles.flags))
        if arguments.has("--help") || arguments.has("-h") {
            print(HelpText.run)
            return .passed
        }
        guard arguments.positionals.isEmpty else {
            throw UsageError("run takes no positional arguments (got '\(arguments.positionals[0])')")
        }
        guard let plan = try plan(arguments) else { return .badInput }
        let settings = plan.settings
        let campaign: Campaign
        do {
            // The campaign checks the target (its one reason to refuse the settings), before anything is written.
            campaign = try Campaign(settings: settings)
        } catch {
            throw TargetOption.refused(settings.target)
        }
        // Checked before the campaign: a file in the way would lose every seed file it writes.
        try OutputPath.checkDirectory(settings.outputDirectory, option: "--out")
        let reports = try ReportFiles(arguments, seedDirectory: settings.outputDirectory)
        if settings.runner != .chaos, settings.isolation.childProcessSettings == nil {
            // Schedules recorded under random per-process hashing would not replay in another process (child
            // processes always run with deterministic hashing).
            DeterministicHashing.ensure()
        }
        let cores = ProcessInfo.processInfo.activeProcessorCount
        announce(plan, cores: cores)
        let startedAt = Date()
        let latest = LatestSummary(CampaignSummary(notStarted: settings))
        guard begin(reports, settings, latest: latest, startedAt: startedAt) else { return .badInput }
        var progressLine = ProgressLine(settings: settings, log: ProgressLog(interval: plan.progressInterval))
        let summary = campaign.run { progress in
            latest.value = progress.summary
            progressLine.show(progress)
        }
        latest.value = summary
        return finish(summary, settings, reports: reports, cores: cores, startedAt: startedAt)
    }

    /// What `run`'s options ask for: the campaign's settings and how to show it. `nil` after printing why a
    /// `--scenario` file cannot be used.
    private struct Plan {
        var settings = Campaign.Settings()
        var jobsLimit: String?
        var scenarioName: String?
        var profile = ScenarioProfile.mixed
        var progressInterval = ProgressLog.defaultInterval
    }

    /// Reads every option into a ``Plan``, checking each against the others.
    private static func plan(_ arguments: ParsedArguments) throws -> Plan? {
        var plan = Plan()
        plan.settings.isolation = try IsolationOptions.isolation(arguments)
        plan.profile = try self.profile(arguments)
        var scenarioOperations: Int?
        if let path = arguments.string("--scenario") {
            guard let loaded = try scenario(path, arguments, into: &plan.settings) else { return nil }
            scenarioOperations = loaded.scenario.operationCount
            plan.scenarioName = "scenario \(path) (\(loaded.scenario.operations.count) workers, "
                + "\(Format.count(loaded.scenario.operationCount)) operations)"
        } else {
            plan.settings.runner = try runnerChoice(arguments)
            plan.settings.scenario = plan.profile.configuration(controlled: plan.settings.runner != .chaos)
        }
        try shape(&plan.settings, arguments)
        let jobs = try IsolationOptions.jobs(
            arguments, isolation: plan.settings.isolation,
            operationsPerRound: scenarioOperations
                ?? plan.settings.scenario.workers * plan.settings.scenario.operationsPerWorker)
        plan.settings.jobs = jobs.jobs
        plan.jobsLimit = jobs.limit
        plan.settings.runner = try stepLimit(plan.settings.runner, for: plan.settings.configuration(), arguments)
        plan.progressInterval = try arguments.seconds("--progress", minimum: 0.1) ?? ProgressLog.defaultInterval
        try limits(&plan.settings, arguments)
        return plan
    }

    /// `--mix`, `--seed`, `--queues`, `--ops-per-queue`, `--objects`, `--controllers`, `--ops`: the rounds' shape,
    /// held to the limits a seed file is held to.
    private static func shape(_ settings: inout Campaign.Settings, _ arguments: ParsedArguments) throws {
        if let mix = arguments.string("--mix") {
            do {
                settings.scenario.mix = try OperationMix(parsing: mix)
            } catch {
                throw UsageError("--mix: \(error)")
            }
        }
        settings.seed = try arguments.seed("--seed") ?? UInt64.random(in: 0...UInt64.max)
        settings.scenario.workers = try arguments.integer("--queues", in: 1...4_096) ?? settings.scenario.workers
        settings.scenario.operationsPerWorker =
            try arguments.integer("--ops-per-queue", in: 1...10_000_000) ?? settings.scenario.operationsPerWorker
        settings.scenario.objects =
            try arguments.integer("--objects", in: 1...ScenarioConfiguration.objectLimit) ?? settings.scenario.objects
        settings.scenario.controllers = try arguments.integer("--controllers", in: 1...1_024) ?? settings.scenario.controllers
        let problems = settings.scenario.problems
        guard problems.isEmpty else {
            // The same limits a seed file is held to (say, at most 50,000,000 operations drawn up front).
            throw UsageError("the scenario is unusable: " + problems.joined(separator: "; "))
        }
        settings.operationBudget = try arguments.integer("--ops", in: 1...Int(Int32.max))
    }

    /// `--duration`, `--no-faults`, `--stop-at-first-failure`, `--max-seed-files`, `--target`, `--out`,
    /// `--no-compare`.
    private static func limits(_ settings: inout Campaign.Settings, _ arguments: ParsedArguments) throws {
        settings.duration = try arguments.seconds("--duration") ?? settings.duration
        if arguments.has("--no-faults") { settings.scenario.faults = .none }
        settings.stopAtFirstFailure = arguments.has("--stop-at-first-failure")
        settings.maximumSeedFiles = try arguments.integer("--max-seed-files", in: 0...100_000) ?? settings.maximumSeedFiles
        if let target = arguments.string("--target") { settings.target = target }
        if let out = arguments.string("--out") { settings.outputDirectory = out }
        if settings.target == "guard", !arguments.has("--no-compare") { settings.comparisonTarget = "raw" }
    }

    /// The campaign's first line on standard error: target, seed, scenario, runner, queues, limits, isolation.
    private static func announce(_ plan: Plan, cores: Int) {
        let settings = plan.settings
        let runnerText = settings.runner.controlledSettings.map { "controlled runner (\($0.strategy))" } ?? "chaos runner"
        let isolationText = settings.isolation.childProcessSettings.map {
            let perProcess = $0.roundsPerProcess(for: settings.runner)
            return (perProcess == 1 ? ", each round in its own process" : ", up to \(perProcess) rounds per process")
                + ", \(settings.jobs) at once" + (plan.jobsLimit.map { " (\($0))" } ?? "")
        } ?? ", in process"
        Terminal.printError(
            "guard-stress: target \(settings.target), seed \(settings.seed), "
                + "\(plan.scenarioName ?? "profile \(plan.profile.rawValue)"), \(runnerText), "
                + "\(settings.scenario.workers) queues on \(cores) cores, up to \(Format.seconds(settings.duration))"
                + (settings.operationBudget.map { " or \(Format.count($0)) operations" } ?? "") + isolationText)
    }

    /// Marks the reports unfinished and arranges an interrupted report on a signal; `false` when they cannot be
    /// written.
    private static func begin(
        _ reports: ReportFiles, _ settings: Campaign.Settings, latest: LatestSummary, startedAt: Date
    ) -> Bool {
        reports.begin(
            unfinished: (
                json: StressReport(
                    unfinished: "run", target: settings.target, runner: settings.runner, isolation: settings.isolation,
                    reason: ProgressLog.stillRunning),
                junit: JUnitReport(
                    unfinished: "run", target: settings.target, runner: settings.runner, reason: ProgressLog.stillRunning,
                    startedAt: startedAt)),
            interrupted: { [isolation = settings.isolation] signal, name in
                let summary = latest.value
                let stopped = summary.interrupted(
                    "stopped by \(name) after \(summary.rounds) round\(summary.rounds == 1 ? "" : "s") (the round "
                        + "that was running is left in its .running.json seed file)")
                return (
                    StressReport(campaign: stopped, isolation: isolation, exitCode: 128 + Int(signal)),
                    JUnitReport(campaign: stopped, startedAt: startedAt))
            })
    }

    /// The summary, the raw comparison, the reports and the result line; the exit code.
    private static func finish(
        _ summary: CampaignSummary, _ settings: Campaign.Settings, reports: ReportFiles, cores: Int, startedAt: Date
    ) -> ExitCode {
        if Terminal.isInteractive { Terminal.endLine() }
        Terminal.printError(
            "guard-stress: \(summary.rounds) rounds, \(Format.count(summary.operations)) operations in "
                + "\(Format.seconds(summary.seconds)), \(Format.count(summary.verdict.totalViolations)) violations")
        print(SummaryPrinter.campaign(summary, cores: cores))
        if let raw = summary.comparison {
            print("")
            print(SummaryPrinter.rawComparison(raw, runner: settings.runner))
        } else if let problem = summary.comparisonError {
            Terminal.printError("guard-stress: the raw-runtime comparison could not run: \(problem)")
        }
        let exitCode: ExitCode = summary.harnessError != nil ? .badInput : summary.passed ? .passed : .violated
        if let harnessError = summary.harnessError {
            Terminal.printError("guard-stress: the campaign could not run its rounds: \(harnessError)")
        }
        let written = reports.write(
            json: StressReport(campaign: summary, isolation: settings.isolation, exitCode: Int(exitCode.rawValue)),
            junit: JUnitReport(campaign: summary, startedAt: startedAt))
        return ResultLine.print(SummaryPrinter.campaignResult(summary), exitCode: exitCode, reportsWritten: written)
    }

    /// The campaign's progress as it runs: failing rounds as they happen (the first ``failingRoundsShown``), and a
    /// status line rewritten in place on a terminal or printed whole every so often to a log.
    private struct ProgressLine {
        let settings: Campaign.Settings
        var log: ProgressLog
        var failuresShown = 0

        mutating func show(_ progress: Campaign.Progress) {
            if let failure = progress.failure {
                if Terminal.isInteractive { Terminal.rewriteLine("") }
                failuresShown += 1
                if failuresShown <= RunCommand.failingRoundsShown {
                    Terminal.printError(SummaryPrinter.failingRound(failure))
                } else if failuresShown == RunCommand.failingRoundsShown + 1 {
                    Terminal.printError("guard-stress: further failing rounds are counted in the summary, not listed here")
                }
            }
            let line =
                "[\(settings.target)] round \(progress.rounds)  ops \(Format.count(progress.operations))  "
                + "\(Format.rate(Double(progress.operations) / max(progress.elapsed, 0.001))) ops/s  "
                + "deliveries \(Format.count(progress.deliveries))  violations \(Format.count(progress.violations))  "
                + Format.seconds(progress.elapsed)
            if Terminal.isInteractive {
                Terminal.rewriteLine(line)
            } else if log.isDue(at: progress.elapsed) {
                // A log (CI) gets a whole line every so often instead of a line rewritten in place.
                Terminal.printError("guard-stress: " + line + " of " + Format.seconds(settings.duration))
            }
        }
    }

    /// `--scenario FILE`: the same operations every round (a text scenario or a seed file's), each round with its own
    /// seed, so its own schedule; the file's target and runner unless `--target` and `--runner` say otherwise. `nil`
    /// after printing why the file cannot be used.
    private static func scenario(
        _ path: String, _ arguments: ParsedArguments, into settings: inout Campaign.Settings
    ) throws -> LoadedScenario? {
        for option in ["--profile", "--mix", "--queues", "--ops-per-queue", "--objects", "--controllers"]
        where arguments.string(option) != nil {
            throw UsageError("\(option) does not go with --scenario: the scenario fixes its workers, operations and slots")
        }
        guard let loaded = ScenarioInput.load(path) else { return nil }
        settings.scenario = loaded.scenario.configuration
        settings.operations = loaded.scenario.operations
        settings.target = loaded.target
        if arguments.string("--runner") != nil || arguments.string("--strategy") != nil || arguments.string("--depth") != nil {
            settings.runner = try runnerChoice(arguments, defaultName: loaded.runner.name)
        } else {
            settings.runner = loaded.runner
        }
        return loaded
    }

    /// `--profile`: a named scenario shape (``ScenarioProfile``); `mixed` by default.
    private static func profile(_ arguments: ParsedArguments) throws -> ScenarioProfile {
        guard let name = arguments.string("--profile") else { return .mixed }
        guard let profile = ScenarioProfile(rawValue: name) else {
            throw UsageError(
                "--profile must be one of \(ScenarioProfile.allCases.map(\.rawValue).joined(separator: ", ")), not '\(name)'")
        }
        return profile
    }

    /// The controlled runner's step limit for rounds of `scenario`: `--max-steps`, which must leave at least one
    /// step per operation (each operation starts at a schedule point, so a smaller limit is always hit: a setting
    /// that cannot work, not a violation), or by default one that grows with the scenario
    /// (``ControlledRunner/Settings/defaultStepLimit(for:)``).
    private static func stepLimit(
        _ runner: RunnerChoice, for scenario: ScenarioConfiguration, _ arguments: ParsedArguments
    ) throws -> RunnerChoice {
        guard var controlled = runner.controlledSettings else { return runner }
        let operations = scenario.workers * scenario.operationsPerWorker
        if let maxSteps = try arguments.integer("--max-steps", in: ControlledRunner.Settings.stepLimits) {
            guard maxSteps >= operations else {
                throw UsageError(
                    "--max-steps \(maxSteps) is fewer than the \(operations) operations of a round (queues × ops per "
                        + "queue), each of which takes at least one step, so every round would hit it; give a larger "
                        + "--max-steps, or leave it out (the default grows with the scenario)")
            }
            controlled.stepLimit = maxSteps
        } else {
            controlled.stepLimit = ControlledRunner.Settings.defaultStepLimit(for: scenario)
        }
        return .controlled(controlled)
    }

    /// Failing rounds listed as they happen (the summary counts the rest).
    static let failingRoundsShown = 20

    /// `--runner`, `--strategy`, `--depth`, `--max-steps`: the runner, with every option checked against it.
    private static func runnerChoice(_ arguments: ParsedArguments, defaultName: String = "chaos") throws -> RunnerChoice {
        let name = arguments.string("--runner") ?? defaultName
        let depth = try arguments.integer("--depth", in: StrategyChoice.depths)
        switch name {
        case "chaos":
            for option in ["--strategy", "--depth", "--max-steps"] where arguments.string(option) != nil {
                throw UsageError("\(option) needs --runner controlled (the chaos runner has no schedule)")
            }
            return .chaos
        case "controlled":
            var settings = ControlledRunner.Settings()
            let strategyName = arguments.string("--strategy") ?? "pct"
            do {
                settings.strategy = try StrategyChoice(
                    name: strategyName, depth: strategyName == "pct" ? depth ?? 3 : depth)
            } catch {
                throw UsageError("--strategy/--depth: \(error)")
            }
            return .controlled(settings)
        default:
            throw UsageError("--runner must be one of \(RunnerChoice.names.joined(separator: ", ")), not '\(name)'")
        }
    }
}
