import FaultInjector
import Foundation

/// A campaign's or a replay's summary as JSON for machines: `guard-stress run --json FILE` and
/// `guard-stress replay FILE --json OUT`. The schema is versioned (``currentVersion``) and documented in the
/// FaultInjector catalog's "Machine-readable reports" article; fields are only ever added within a version.
///
/// Every report has the same header (format, version, command, result, target, runner, isolation, totals,
/// violations) and one section for its command: ``run``, ``replay`` or ``mutants``. Seeds are decimal strings (JSON numbers lose
/// precision above 2^53).
public struct StressReport: Codable, Sendable {
    /// The value of `format` in every report.
    public static let formatName = "kvoguard-stress-report"
    /// The schema version this build writes.
    public static let currentVersion = 1

    /// How rounds were run.
    public struct Runner: Codable, Sendable, Equatable {
        /// `chaos` or `controlled`.
        public var name: String
        /// `pct` or `random` (controlled only).
        public var strategy: String?
        /// PCT's depth.
        public var depth: Int?
        /// The controlled runner's step limit.
        public var stepLimit: Int?
    }

    /// Where rounds ran.
    public struct Isolation: Codable, Sendable, Equatable {
        /// `process` (each round in a child process) or `in-process`.
        public var mode: String
        /// Rounds one child process served at most.
        public var roundsPerProcess: Int?
        /// `run` only: rounds run at once, each in its own child process (1 in process).
        public var jobs: Int?
        /// Seconds without progress after which a chaos round was a deadlock.
        public var stallTimeoutSeconds: Double?
        /// Child processes started.
        public var processesStarted: Int?
        /// Child processes that crashed, trapped, exited early or were killed for not answering.
        public var processesLost: Int?
        /// Mean seconds from starting a child to its being ready.
        public var meanStartupSeconds: Double?
        /// Seconds isolation added per round (start-up waits and round trips beyond the rounds' own time).
        public var overheadPerRoundSeconds: Double?
        /// Mean seconds a child spent on a round (run, teardown and oracle).
        public var meanRoundSeconds: Double?
    }

    /// What ran.
    public struct Totals: Codable, Sendable, Equatable {
        /// Rounds (run) or runs (replay).
        public var rounds: Int
        /// Operations performed, handler actions included (rounds whose process died are not counted).
        public var operations: Int
        /// Notifications received.
        public var deliveries: Int
        /// Schedule steps (controlled runner).
        public var steps: Int
        /// Wall-clock seconds in all.
        public var seconds: Double
        /// Operations per second over ``seconds``.
        public var operationsPerSecond: Double
    }

    /// What the oracle found, across all rounds.
    public struct Violations: Codable, Sendable, Equatable {
        /// Violations counted.
        public var total: Int
        /// Violations by kind (`missing-delivery`, `crash`, `trap`, `deadlock`, ...).
        public var byKind: [String: Int]
        /// Misuses that reached the runtime, by kind.
        public var runtimeMisuses: [String: Int]
        /// Signals (or `exit N`) that ended the processes of rounds, with counts.
        public var crashSignals: [String: Int]
        /// Checks made, by rule.
        public var checks: [String: Int]
        /// The first violations in full, `kind: message` each.
        public var examples: [String]
    }

    /// A failing round of a campaign.
    public struct FailingRound: Codable, Sendable, Equatable {
        /// The round's index, from 0.
        public var round: Int
        /// The round's seed (the one its seed file names).
        public var seed: String
        /// Its failure signature (`crash(SIGSEGV)`, `missing-delivery+leak`, ...).
        public var signature: String
        /// Seconds the round took.
        public var seconds: Double
        /// The seed file written for it (`null` when the campaign's limit was reached).
        public var seedFile: String?
        /// The standard error of its process, for a round whose process crashed, trapped or hung.
        public var log: String?
        /// Its first violations, `kind: message` each.
        public var messages: [String]
    }

    /// The `run` section.
    public struct Run: Codable, Sendable, Equatable {
        /// The campaign seed.
        public var seed: String
        /// The first round's configuration.
        public var scenario: ScenarioConfiguration
        /// Rounds whose oracle held.
        public var passedRounds: Int
        /// Rounds that failed, in order.
        public var failingRounds: [FailingRound]
        /// Rounds that deadlocked.
        public var deadlockedRounds: Int
        /// Every seed file written.
        public var seedFiles: [String]
        /// Failing rounds left without a seed file because of the campaign's limit.
        public var unwrittenSeedFiles: Int
        /// Mistakes the guard absorbed, by kind.
        public var preventedMisuses: [String: Int]
        /// Files that could not be written, as sentences.
        public var writeErrors: [String]
        /// Why the campaign stopped early without running rounds, if it did.
        public var harnessError: String?
    }

    /// One run of a replay.
    public struct ReplayRun: Codable, Sendable, Equatable {
        /// From 1.
        public var run: Int
        /// Its failure signature; empty when the oracle held.
        public var signature: String
        /// Seconds its workers ran (for a run whose process died: until it died).
        public var seconds: Double
        /// Its first violations, `kind: message` each.
        public var messages: [String]
    }

    /// The `replay` section.
    public struct Replay: Codable, Sendable, Equatable {
        /// The seed file replayed.
        public var seedFile: String
        /// Its scenario seed.
        public var seed: String
        /// The target the file names (the report's `target` may differ with `--target`).
        public var recordedTarget: String
        /// The file's failure signature.
        public var recordedSignature: String
        /// Runs made.
        public var runs: Int
        /// Runs whose oracle was violated.
        public var reproducedRuns: Int
        /// Runs with the recorded signature.
        public var sameSignatureRuns: Int
        /// Controlled files: runs that followed the recorded schedule and recorded the history whose digest the file
        /// records (`nil`, and absent from the JSON, for chaos and when ``exactnessNotChecked`` says why nothing could be
        /// compared).
        public var exactRuns: Int?
        /// Controlled files whose runs could not be checked for exactness: why (the file has no recorded schedule or
        /// no history digest, or the replay's target is not the file's). Absent when exactness was checked, and for
        /// chaos files, which never claim it.
        public var exactnessNotChecked: String?
        /// Runs whose process died before they could be compared with the recording.
        public var crashedRuns: Int
        /// Why runs did not match the recording.
        public var mismatches: [String]
        /// Each run.
        public var runResults: [ReplayRun]
    }

    /// Always ``formatName``.
    public var format = StressReport.formatName
    /// The schema version.
    public var version = StressReport.currentVersion
    /// The guard-stress version that wrote it.
    public var toolVersion = ToolVersion.current
    /// When it was written (ISO 8601).
    public var createdAt: String
    /// `run`, `replay` or `mutants`.
    public var command: String
    /// `pass` or `fail` for run and mutants; `reproduced` (the recorded failure came back), `other-failure` (the
    /// oracle was violated, but never with the recorded signature) or `not-reproduced` for replay; for any command,
    /// `incomplete` (written when the command started, and not yet replaced by its final report: it is still
    /// running, or was killed before it could write one) or `interrupted` (stopped by a signal; see
    /// ``interruption``).
    public var result: String
    /// The process's exit code: 0 the oracle held (mutants: every planted bug caught, the guard clean), 1 it was
    /// violated (a replay reproduced, or failed otherwise; a planted bug survived), 2 bad input; 128 + the signal's
    /// number for an `interrupted` report (143 for SIGTERM); -1 for an `incomplete` one.
    public var exitCode: Int
    /// For an `incomplete` or `interrupted` report: why the command did not finish. Absent otherwise.
    public var interruption: String?
    /// The system under test.
    public var target: String
    /// The runner.
    public var runner: Runner
    /// Where rounds ran.
    public var isolation: Isolation
    /// What ran.
    public var totals: Totals
    /// What the oracle found.
    public var violations: Violations
    /// The `run` section (command `run` only).
    public var run: Run?
    /// The `replay` section (command `replay` only).
    public var replay: Replay?
    /// The `mutants` section (command `mutants` only): the planted-bug kill matrix.
    public var mutants: Mutants?

    /// The report of a campaign that exited with `exitCode`, whose rounds were isolated by `isolation`.
    public init(campaign summary: CampaignSummary, isolation: RoundIsolation, exitCode: Int, createdAt: Date = Date()) {
        self.createdAt = ISO8601DateFormatter().string(from: createdAt)
        command = "run"
        result = summary.interruption != nil ? "interrupted" : summary.passed ? "pass" : "fail"
        self.exitCode = exitCode
        interruption = summary.interruption
        target = summary.target
        runner = Runner(summary.runner)
        self.isolation = Isolation(isolation, runner: summary.runner, statistics: summary.isolation)
        self.isolation.jobs = summary.jobs
        totals = Totals(
            rounds: summary.rounds, operations: summary.operations, deliveries: summary.deliveries,
            steps: summary.steps, seconds: summary.seconds, operationsPerSecond: summary.throughput)
        violations = Violations(summary.verdict)
        run = Run(
            seed: String(summary.seed), scenario: summary.scenario,
            passedRounds: summary.rounds - summary.failures.count,
            failingRounds: summary.failures.map {
                FailingRound(
                    round: $0.round, seed: String($0.seed), signature: $0.signature, seconds: $0.seconds,
                    seedFile: $0.seedFile, log: $0.log, messages: $0.messages)
            },
            deadlockedRounds: summary.deadlockedRounds, seedFiles: summary.seedFiles,
            unwrittenSeedFiles: summary.unwrittenSeedFiles,
            preventedMisuses: Dictionary(uniqueKeysWithValues: summary.preventedMisuses.map { ($0.key.rawValue, $0.value) }),
            writeErrors: summary.writeErrors, harnessError: summary.harnessError)
    }

    /// The report of replaying `file` (read from `path`) against `target` with `runner`, isolated by `isolation`.
    public init(
        replay outcome: Replayer.Outcome, file: SeedFile, path: String, target: String, runner: RunnerChoice,
        isolation: RoundIsolation, exitCode: Int, seconds: Double, createdAt: Date = Date()
    ) {
        self.createdAt = ISO8601DateFormatter().string(from: createdAt)
        command = "replay"
        result = outcome.reproduced ? "reproduced" : outcome.violated ? "other-failure" : "not-reproduced"
        self.exitCode = exitCode
        self.target = target
        self.runner = Runner(runner)
        self.isolation = Isolation(isolation, runner: runner, statistics: outcome.isolation)
        var merged = Verdict()
        for verdict in outcome.verdicts { merged.merge(verdict) }
        let operations = outcome.verdicts.reduce(0) { $0 + $1.operations }
        totals = Totals(
            rounds: outcome.runs, operations: operations, deliveries: outcome.verdicts.reduce(0) { $0 + $1.deliveries },
            steps: outcome.verdicts.reduce(0) { $0 + $1.steps }, seconds: seconds,
            operationsPerSecond: seconds > 0 ? Double(operations) / seconds : 0)
        violations = Violations(merged)
        replay = Replay(
            seedFile: path, seed: file.seed, recordedTarget: file.target, recordedSignature: file.failure.signature,
            runs: outcome.runs, reproducedRuns: outcome.violatedRuns, sameSignatureRuns: outcome.sameSignatureRuns,
            exactRuns: outcome.exactRuns, exactnessNotChecked: outcome.exactnessNotChecked,
            crashedRuns: outcome.crashedRuns, mismatches: outcome.mismatches,
            runResults: outcome.verdicts.enumerated().map { index, verdict in
                ReplayRun(
                    run: index + 1, signature: verdict.signature, seconds: verdict.seconds,
                    messages: verdict.violations.map { "\($0.kind.rawValue): \($0.message)" })
            })
    }

    /// The report of a `command` (`run`, `replay`, `mutants`) against `target` with `runner` that has not finished:
    /// ``result`` `incomplete` (written when it starts, replaced by its final report) or, given a `signal`,
    /// `interrupted` with exit code 128 + the signal's number. Totals and violations are zero: nothing of the
    /// command's work is in it.
    public init(
        unfinished command: String, target: String, runner: RunnerChoice, isolation: RoundIsolation, reason: String,
        signal: Int32? = nil, createdAt: Date = Date()
    ) {
        self.createdAt = ISO8601DateFormatter().string(from: createdAt)
        self.command = command
        result = signal == nil ? "incomplete" : "interrupted"
        exitCode = signal.map { 128 + Int($0) } ?? -1
        interruption = reason
        self.target = target
        self.runner = Runner(runner)
        self.isolation = Isolation(isolation, runner: runner, statistics: nil)
        totals = Totals(rounds: 0, operations: 0, deliveries: 0, steps: 0, seconds: 0, operationsPerSecond: 0)
        violations = Violations(Verdict())
    }

    /// The report as pretty-printed JSON with sorted keys, ending in a newline.
    public func encoded() throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        var data = try encoder.encode(self)
        data.append(0x0A)
        return data
    }
}

extension StressReport.Runner {
    init(_ choice: RunnerChoice) {
        name = choice.name
        if let controlled = choice.controlledSettings {
            strategy = controlled.strategy.name
            depth = controlled.strategy.depth
            stepLimit = controlled.stepLimit
        }
    }
}

extension StressReport.Isolation {
    init(_ isolation: RoundIsolation, runner: RunnerChoice, statistics: IsolationStatistics?) {
        guard let settings = isolation.childProcessSettings else {
            mode = "in-process"
            return
        }
        mode = "process"
        roundsPerProcess = settings.roundsPerProcess(for: runner)
        stallTimeoutSeconds = settings.stallTimeout
        processesStarted = statistics?.processesStarted
        processesLost = statistics?.processesLost
        meanStartupSeconds = statistics?.meanStartupSeconds
        overheadPerRoundSeconds = statistics?.overheadPerRound
        meanRoundSeconds = statistics?.meanRoundSeconds
    }
}

extension StressReport.Violations {
    init(_ verdict: Verdict) {
        total = verdict.totalViolations
        byKind = Dictionary(uniqueKeysWithValues: verdict.violationCounts.map { ($0.key.rawValue, $0.value) })
        runtimeMisuses = Dictionary(uniqueKeysWithValues: verdict.runtimeMisuses.map { ($0.key.rawValue, $0.value) })
        crashSignals = verdict.crashSignals
        checks = verdict.checks
        examples = verdict.violations.map { "\($0.kind.rawValue): \($0.message)" }
    }
}
