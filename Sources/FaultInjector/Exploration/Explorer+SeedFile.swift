import Foundation

extension Explorer {
    /// The seed file of a failing interleaving: `failure`'s canonical interleaving run again as an ordinary
    /// controlled run (``reproduce(_:)``), which records the schedule it took and the digest of its history, so the
    /// file replays exactly with ``Replayer`` (`guard-stress replay`). Its description says how it was found. `nil`
    /// if that run does not fail with the failure's signature (the oracle judged the explored history differently:
    /// a bug of the explorer's, never expected).
    public func seedFile(for failure: ExploredFailure, toolVersion: String = ToolVersion.current) -> SeedFile? {
        let result = reproduce(failure)
        guard result.verdict.signature == failure.signature else { return nil }
        var file = SeedFile(result: result, toolVersion: toolVersion)
        let bound = settings.preemptionBound.map { " with at most \($0) preemption\($0 == 1 ? "" : "s")" } ?? ""
        file.description =
            "Found by guard-stress explore\(bound) in execution \(failure.execution): the canonical interleaving of the "
            + "first failing class; the recorded schedule replays it exactly."
        return file
    }
}

/// The JSON summary of `guard-stress explore` (`--json`): a versioned object.
public struct ExplorationReport: Codable, Sendable {
    /// ``formatName``.
    public var format = Self.formatName
    /// ``currentVersion``.
    public var version = Self.currentVersion
    /// What was explored: the scenario file (or the proof run's name) and the target.
    public var scenario: String
    /// The target explored.
    public var target: String
    /// `complete`, `complete-up-to-preemptions`, `violation` or `not-a-proof`.
    public var answer: String
    /// The bound, for `complete-up-to-preemptions` (and any bounded search).
    public var preemptionBound: Int?
    /// Why it is not a proof, for `not-a-proof`.
    public var reason: String?
    /// Whether partial-order reduction was on.
    public var reduction: Bool
    /// Scenarios explored (1, or a proof run's count).
    public var scenarios: Int
    /// Classes, executions, sleep-set blocked executions, failing classes.
    public var classes: Int
    public var executions: Int
    public var sleepBlocked: Int
    public var failingClasses: Int
    /// Wall-clock seconds and executions per second.
    public var seconds: Double
    public var executionsPerSecond: Double
    /// Processes that ran executions.
    public var jobs: Int
    /// The first failure: signature, examples, and the seed files written for it.
    public var failure: Failure?
    /// The exit code guard-stress returned.
    public var exitCode: Int

    /// A failure found.
    public struct Failure: Codable, Sendable {
        public var signature: String
        public var examples: [String]
        /// The seed file of the failing interleaving, if written.
        public var seedFile: String?
        /// The shrunk seed file, if shrinking succeeded.
        public var shrunkSeedFile: String?

        public init(signature: String, examples: [String], seedFile: String?, shrunkSeedFile: String?) {
            self.signature = signature
            self.examples = examples
            self.seedFile = seedFile
            self.shrunkSeedFile = shrunkSeedFile
        }
    }

    /// `kvoguard-exploration-report`.
    public static let formatName = "kvoguard-exploration-report"
    /// The version of this format.
    public static let currentVersion = 1

    /// The report of `outcome`.
    public init(
        outcome: ExplorationOutcome, scenario: String, target: String, settings: ExplorationSettings, scenarios: Int,
        failure: Failure?, exitCode: Int
    ) {
        self.scenario = scenario
        self.target = target
        switch outcome.answer {
        case .complete: answer = "complete"
        case .completeUpToPreemptions: answer = "complete-up-to-preemptions"
        case .violation: answer = "violation"
        case .notAProof(let why):
            answer = "not-a-proof"
            reason = why
        }
        preemptionBound = settings.preemptionBound
        reduction = settings.reduction
        self.scenarios = scenarios
        classes = outcome.classes
        executions = outcome.executions
        sleepBlocked = outcome.sleepBlocked
        failingClasses = outcome.failingClasses
        seconds = outcome.seconds
        executionsPerSecond = outcome.executionsPerSecond
        jobs = settings.jobs
        self.failure = failure
        self.exitCode = exitCode
    }

    /// Pretty-printed JSON with sorted keys and a final newline.
    public func encoded() throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        var data = try encoder.encode(self)
        data.append(0x0A)
        return data
    }
}
