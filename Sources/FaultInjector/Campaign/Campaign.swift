import Foundation
import GuardCore

/// A stress campaign: rounds of fresh scenarios against one target until an operation budget or a time budget is
/// used up. Each round is run by the chosen runner, then judged by the ``Oracle``; every failing round is written
/// as a seed file.
///
/// Each round's seed file is written before the round runs (`seed-TARGET-SEED.running.json`, failure
/// `unfinished`), so even a crash of the whole process leaves the round to replay; it is removed when the round has
/// finished, and a failing round gets its seed file under the usual name.
///
/// Rounds run in this process by default. With ``Settings/isolation`` set to child processes, a crash, a trap or a
/// hang of the system under test is the verdict of its round (`crash(SIGSEGV)`, `trap`, `deadlock`), with its seed
/// file (and the process's standard error beside it, `.log`), and the campaign goes on in a fresh process.
///
/// The target is named by ``Settings/target`` and made by ``Settings/makeTarget``: the built-in catalog's by default,
/// or a factory of your own that knows your own systems under test (and, with child processes, the same factory
/// served by the child program with ``RoundServer/serve(makeTarget:)``). A name the factory does not know is refused
/// when the campaign is created (``CampaignSettingsError``), never at run time.
///
/// With the controlled runner each round is one schedule; PCT's expected step count starts from an estimate and
/// follows the longest run seen so far (as shuttle's PCT does), and each seed file records the value its round used.
public struct Campaign: Sendable {
    /// What to run and for how long.
    public struct Settings: Sendable {
        /// The campaign seed; round `r` uses its own seed derived from it.
        public var seed: UInt64 = 1
        /// The scenario of every round (its seed is replaced per round).
        public var scenario = ScenarioConfiguration()
        /// Stop after this many operations in all (`nil`: no limit). A round whose process died counts with its
        /// scenario's operations.
        public var operationBudget: Int? = nil
        /// Stop starting rounds after this many seconds.
        public var duration: Double = 50
        /// The system under test's name: one ``makeTarget`` knows (the built-in ``TargetCatalog`` by default). It is
        /// the name the campaign's seed files keep, and the name a child process's ``RoundServer`` makes it by.
        public var target = "guard"
        /// Makes the target by name for rounds that run in this process (and checks the name before the campaign).
        /// The built-in catalog by default; for a system under test of your own, a factory that knows its name.
        /// With child processes, serve the same factory there: ``RoundServer/serve(makeTarget:)``.
        public var makeTarget: TargetFactory = TargetCatalog.make
        /// Which runner runs each round.
        public var runner = RunnerChoice.chaos
        /// Where seed files of failing rounds go.
        public var outputDirectory = "stress-seeds"
        /// Stop at the first failing round.
        public var stopAtFirstFailure = false
        /// Write seed files for at most this many failing rounds (a long campaign against a broken target would
        /// otherwise fill the disk with near-identical files). A failure with a signature not seen before in the
        /// campaign is always written; repeats beyond the limit are only counted.
        public var maximumSeedFiles = 10
        /// Where rounds run: in this process (the default), or each in a child process.
        public var isolation = RoundIsolation.inProcess
        /// Whether each round's seed file is written before the round runs (and removed after it passed).
        public var writesSeedFileBeforeEachRound = true
        /// The same operations for every round (a scenario written by hand, `guard-stress run --scenario`), each
        /// round with its own seed, so its own schedule and pauses; ``scenario`` must fit them. `nil` (the default):
        /// each round draws its own operations from its seed.
        public var operations: [[Operation]]?

        /// The defaults: 64 queues × 1,000 operations per round, 50 seconds, the guard, in this process.
        public init() {}

        /// The scenario of round `round`, after `operationsDone` operations: its own seed, and cut to fit when the
        /// operation budget is nearly used up (see ``configuration(operationsDone:)``).
        public func scenario(forRound round: Int, operationsDone: Int = 0) -> Scenario {
            if let operations {
                return Scenario(
                    configuration: scenario, seed: StreamSeeds.seed(run: seed, purpose: .rounds, index: round),
                    operations: operations)
            }
            return Scenario(
                configuration: configuration(operationsDone: operationsDone),
                seed: StreamSeeds.seed(run: seed, purpose: .rounds, index: round))
        }

        /// The configuration of the round after `operationsDone` operations (the first round's is the largest).
        /// When the operation budget has less than a whole round left, the round is cut to fit: fewer operations
        /// per worker (spread evenly, rounded up) and, if that is still more than is left, fewer workers, so a
        /// round draws at most `operations per worker - 1` operations more than the budget has left (`--ops 1`
        /// runs one operation on one worker, `--ops 100` on 64 workers runs 50 workers × 2).
        public func configuration(operationsDone: Int = 0) -> ScenarioConfiguration {
            var configuration = scenario
            if let operationBudget {
                let remaining = max(1, operationBudget - operationsDone)
                let workers = max(1, configuration.workers)
                let perWorker = max(1, min(configuration.operationsPerWorker, (remaining + workers - 1) / workers))
                configuration.operationsPerWorker = perWorker
                configuration.workers = min(workers, (remaining + perWorker - 1) / perWorker)
            }
            return configuration
        }
    }

    /// Where a campaign stands, after each round.
    public struct Progress: Sendable {
        /// Rounds finished.
        public let rounds: Int
        /// Operations performed so far.
        public let operations: Int
        /// Notifications received so far.
        public let deliveries: Int
        /// Oracle violations so far.
        public let violations: Int
        /// Seconds since the campaign started.
        public let elapsed: Double
        /// The round that just finished.
        public let round: CampaignSummary.RoundRecord
        /// Its failure, if it failed.
        public let failure: CampaignSummary.FailedRound?
    }

    /// What this campaign runs.
    public let settings: Settings

    /// Creates a campaign; throws if ``Settings/makeTarget`` cannot make ``Settings/target``.
    public init(settings: Settings) throws(CampaignSettingsError) {
        guard settings.makeTarget(settings.target, CountingSink(keepsEvents: false)) != nil else {
            throw CampaignSettingsError(unknownTarget: settings.target)
        }
        self.settings = settings
    }

    /// Runs the campaign, calling `progress` after every round.
    public func run(progress: (Progress) -> Void = { _ in }) -> CampaignSummary {
        var summary = CampaignSummary(
            target: settings.target, seed: settings.seed, scenario: settings.scenario, runner: settings.runner)
        let host = settings.isolation.childProcessSettings.map {
            ChildRoundHost(settings: $0, roundsPerProcess: $0.roundsPerProcess(for: settings.runner))
        }
        defer { host?.finish() }
        let outputDirectoryExisted = FileManager.default.fileExists(atPath: settings.outputDirectory)
        defer { if !outputDirectoryExisted { removeIfEmpty(settings.outputDirectory) } }
        let start = MonotonicClock.now
        var round = 0
        var learnedSteps: Int?
        var budgetUsed = 0
        var signaturesSeen: Set<String> = []
        while true {
            let elapsed = Double(MonotonicClock.now - start) / 1e9
            if round > 0, elapsed >= settings.duration { break }
            if let budget = settings.operationBudget, budgetUsed >= budget { break }
            let scenario = settings.scenario(forRound: round, operationsDone: budgetUsed)
            if round == 0 { summary.scenario = scenario.configuration }
            let roundStart = MonotonicClock.now
            var file = SeedFile(
                roundAboutToRun: scenario, target: settings.target, runner: runner(learnedSteps: learnedSteps),
                toolVersion: ToolVersion.current)
            // Operations the seed does not regenerate are written out.
            if settings.operations != nil { file.operations = scenario.operations.map { $0.map(\.description) } }
            let plan = RoundPlan(file: file, scenario: scenario)
            let unfinished = writeUnfinished(plan, into: &summary)
            let wish: RoundRequest.SeedFileWish =
                summary.seedFiles.count < settings.maximumSeedFiles ? .always : .unlessSignatureIn(signaturesSeen.sorted())
            let executed: ExecutedRound
            if let host {
                guard let isolated = runIsolated(plan, on: host, wish: wish, summary: &summary) else {
                    unfinished?.remove()
                    break
                }
                executed = isolated
            } else {
                guard let inProcess = runInProcess(plan, summary: &summary) else {
                    unfinished?.remove()
                    break
                }
                executed = inProcess
            }
            let verdict = executed.verdict
            if let choiceSteps = verdict.choiceSteps { learnedSteps = max(learnedSteps ?? 0, choiceSteps) }
            summary.add(verdict)
            // A round that died or deadlocked counts with all its planned operations: otherwise a target that
            // always hangs would use the budget up a few operations per round.
            let unfinishedRound = executed.processDied || verdict.abandoned
            budgetUsed += unfinishedRound ? max(verdict.operations, scenario.operationCount) : verdict.operations
            let seconds = Double(MonotonicClock.now - roundStart) / 1e9
            let record = CampaignSummary.RoundRecord(
                round: round, seed: scenario.seed, seconds: seconds, signature: verdict.signature)
            summary.roundRecords.append(record)
            var failure: CampaignSummary.FailedRound?
            if !verdict.passed {
                var failed = CampaignSummary.FailedRound(round: round, seed: scenario.seed, signature: verdict.signature)
                failed.messages = verdict.report.violations.map { "\($0.kind.rawValue): \($0.message)" }
                failed.seconds = seconds
                summary.failures.append(failed)
                keepSeedFile(of: executed, isNewFailure: signaturesSeen.insert(verdict.signature).inserted, in: &summary)
                failure = summary.failures.last
            }
            unfinished?.remove()
            round += 1
            progress(
                Progress(
                    rounds: round, operations: summary.operations, deliveries: summary.deliveries,
                    violations: summary.report.totalViolations, elapsed: Double(MonotonicClock.now - start) / 1e9,
                    round: record, failure: failure))
            // In this process, abandoned workers stay blocked (and may hold locks later rounds need).
            if verdict.abandoned, host == nil { break }
            if !verdict.passed, settings.stopAtFirstFailure { break }
        }
        summary.seconds = Double(MonotonicClock.now - start) / 1e9
        summary.isolation = host?.statistics
        return summary
    }

    /// A round about to run: its seed file (written before it runs, sent to a child process), the file as JSON,
    /// and its scenario.
    private struct RoundPlan {
        let file: SeedFile
        let encodedFile: Data?
        let scenario: Scenario

        init(file: SeedFile, scenario: Scenario) {
            self.file = file
            encodedFile = try? JSONEncoder().encode(file)
            self.scenario = scenario
        }
    }

    /// A round that ran: its verdict, and how to get its seed file and (for a round whose process died) its log.
    private struct ExecutedRound {
        let verdict: RoundVerdict
        let seedFile: () -> SeedFile?
        var log: String?

        /// Whether the round's process died (crashed, trapped, or was killed for not answering).
        var processDied: Bool { log != nil }
    }

    /// Runs the round here; `nil` (with ``CampaignSummary/harnessError`` set) if it cannot be set up.
    private func runInProcess(_ plan: RoundPlan, summary: inout CampaignSummary) -> ExecutedRound? {
        let diagnostics = CountingSink(keepsEvents: false)
        guard let target = settings.makeTarget(settings.target, diagnostics) else {
            summary.harnessError = "the campaign's target factory no longer makes target \"\(settings.target)\""
            return nil
        }
        let choice: RunnerChoice
        do {
            choice = try plan.file.makeRunnerChoice()
        } catch {
            summary.harnessError = "the round's runner could not be set up: \(error)"
            return nil
        }
        let result = choice.makeRunner().runAndEvaluate(plan.scenario, against: target)
        return ExecutedRound(
            verdict: RoundVerdict(result, preventedMisuses: diagnostics.counts),
            seedFile: { SeedFile(result: result, toolVersion: ToolVersion.current) })
    }

    /// Runs the round in a child process; `nil` (with ``CampaignSummary/harnessError`` set) if none can run it.
    private func runIsolated(
        _ plan: RoundPlan, on host: ChildRoundHost, wish: RoundRequest.SeedFileWish, summary: inout CampaignSummary
    ) -> ExecutedRound? {
        let stallTimeout = settings.isolation.childProcessSettings?.stallTimeout ?? 3
        let request: [UInt8]
        do {
            guard let encodedFile = plan.encodedFile else { throw CocoaError(.coderInvalidValue) }
            request = try RoundRequest.encoded(file: encodedFile, target: nil, stallTimeout: stallTimeout, seedFile: wish)
        } catch {
            summary.harnessError = "the round's seed file could not be encoded: \(error)"
            return nil
        }
        switch host.run(encoded: request, operations: plan.scenario.operationCount) {
        case .answered(let answer):
            guard let verdict = answer.verdict else {
                summary.harnessError = "the child process could not run the round: \(answer.error ?? "no reason given")"
                return nil
            }
            return ExecutedRound(verdict: verdict, seedFile: { answer.seedFile })
        case .ended(let verdict, let log):
            let file = plan.file.finished(with: verdict.report, scenario: plan.scenario)
            return ExecutedRound(verdict: verdict, seedFile: { file }, log: log)
        case .failed(let error):
            summary.harnessError = error.description
            return nil
        }
    }

    /// The runner of a round: PCT without a fixed expected step count uses the most counted steps a round took so
    /// far (the first round uses an estimate from the scenario size).
    private func runner(learnedSteps: Int?) -> RunnerChoice {
        guard case .controlled(var controlled) = settings.runner else { return settings.runner }
        if controlled.expectedSteps == nil, let learnedSteps, learnedSteps > 0 {
            controlled.expectedSteps = learnedSteps
        }
        return .controlled(controlled)
    }

    /// Writes the round's seed file before it runs (if the settings ask for it); a failure to write is noted once.
    private func writeUnfinished(_ plan: RoundPlan, into summary: inout CampaignSummary) -> UnfinishedSeedFile? {
        guard settings.writesSeedFileBeforeEachRound else { return nil }
        do {
            guard let encoded = plan.encodedFile else { throw CocoaError(.coderInvalidValue) }
            return try UnfinishedSeedFile(plan.file, encoded: encoded, into: settings.outputDirectory)
        } catch {
            let message = "could not write the seed file of a round before running it into \(settings.outputDirectory): "
                + error.localizedDescription
            if !summary.writeErrors.contains(message) { summary.writeErrors.append(message) }
            return nil
        }
    }

    /// Removes `directory` if it holds nothing (the campaign created it for seed files of rounds that all passed).
    private func removeIfEmpty(_ directory: String) {
        guard let contents = try? FileManager.default.contentsOfDirectory(atPath: directory), contents.isEmpty else { return }
        try? FileManager.default.removeItem(atPath: directory)
    }

    /// Writes the seed file of a failing round, unless its failure is a repeat and the campaign already wrote as
    /// many as it may; a round whose process died gets its log beside it.
    private func keepSeedFile(of round: ExecutedRound, isNewFailure: Bool, in summary: inout CampaignSummary) {
        guard isNewFailure || summary.seedFiles.count < settings.maximumSeedFiles, let file = round.seedFile() else {
            summary.unwrittenSeedFiles += 1
            return
        }
        do {
            let path = try SeedFileStore.write(file, into: settings.outputDirectory)
            summary.seedFiles.append(path)
            summary.failures[summary.failures.count - 1].seedFile = path
            if let log = round.log, !log.isEmpty {
                let logPath = String(path.dropLast(".json".count)) + ".log"
                try AtomicFile.write(Data(log.utf8), to: logPath, replacing: true)
                summary.failures[summary.failures.count - 1].log = logPath
            }
        } catch {
            let reason = error.localizedDescription
            if summary.failures[summary.failures.count - 1].seedFile == nil {
                summary.failures[summary.failures.count - 1].seedFileProblem = "writing it failed: \(reason)"
            }
            summary.writeErrors.append("could not write a seed file into \(settings.outputDirectory): \(reason)")
        }
    }
}
