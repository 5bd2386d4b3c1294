import Foundation

/// A failing run written down so anyone can replay it: versioned JSON holding the tool version, the target, the
/// runner (and for a controlled run its strategy, limits and the schedule it took), the seed and scenario
/// configuration, the failure signature with the first violations, and (when not too long) every worker's
/// operations in their one-line text form.
///
/// ```json
/// { "format": "kvoguard-seed", "version": 2, "toolVersion": "0.2.0", "target": "raw", "runner": "controlled",
///   "strategy": "pct", "depth": 3, "expectedSteps": 1200, "stepLimit": 1000000, "seed": "1234",
///   "scenario": { ... }, "failure": { "signature": "runtime-misuse(notRegistered)", ... },
///   "operations": [["observe c1 o0 k0 [initial,new]", "mutate o0 k0", ...], ...],
///   "schedule": { "steps": 812, "workers": "0*12 1 2*3 ...", "points": "soaarr...", "historyDigest": "..." } }
/// ```
///
/// Version 1 files (chaos runs, before the controlled runner existed) are still read: they have no strategy,
/// limits or schedule.
public struct SeedFile: Codable, Sendable, Equatable {
    /// The value of `format` in every seed file.
    public static let formatName = "kvoguard-seed"
    /// The version this build writes.
    public static let currentVersion = 2
    /// The versions this build reads.
    public static let readableVersions = 1...2
    /// Operations are written out only up to this many in all; larger scenarios are regenerated from the seed.
    public static let operationListLimit = 200_000
    /// Schedules are written out only up to this many steps; longer ones are regenerated from the strategy.
    public static let scheduleStepLimit = 2_000_000

    /// What failed.
    public struct Failure: Codable, Sendable, Equatable {
        /// ``Verdict/signature``: violation kinds and runtime misuse kinds.
        public var signature: String
        /// Violations counted by kind (`missing-delivery: 3`).
        public var violationCounts: [String: Int]
        /// Runtime misuses counted by kind.
        public var runtimeMisuses: [String: Int]
        /// The first violations, in full.
        public var examples: [String]
    }

    /// The schedule a controlled run took, in ``Schedule``'s text form.
    public struct RecordedSchedule: Codable, Sendable, Equatable {
        /// Steps taken.
        public var steps: Int
        /// The worker chosen at each step, run-length encoded (`"0*12 1 2*3"`).
        public var workers: String
        /// The point reached at each step, one ``SchedulePoint/code`` each.
        public var points: String
        /// ``History/digest`` of the recorded history: an exact replay records the same.
        public var historyDigest: String?

        /// The text form of `schedule`, with the digest of the history it produced.
        public init(_ schedule: Schedule, historyDigest: String?) {
            steps = schedule.count
            workers = schedule.workersText
            points = schedule.pointsText
            self.historyDigest = historyDigest
        }
    }

    /// Always ``formatName``.
    public var format: String
    /// The format version (``currentVersion`` for files this build writes).
    public var version: Int
    /// The guard-stress version that wrote the file.
    public var toolVersion: String
    /// When the file was written (ISO 8601).
    public var createdAt: String
    /// The system under test (`guard`, `raw`, ...).
    public var target: String
    /// `chaos` (real threads; replays the operations, not the interleaving) or `controlled` (one worker at a time
    /// under a scheduling strategy; replays exactly).
    public var runner: String
    /// The scheduling strategy of a controlled run (`random` or `pct`); absent for chaos.
    public var strategy: String?
    /// PCT's depth; absent otherwise.
    public var depth: Int?
    /// The counted steps PCT spread its change points over; absent otherwise.
    public var expectedSteps: Int?
    /// A controlled run's step limit; absent for chaos.
    public var stepLimit: Int?
    /// The scenario seed, as a decimal string (JSON numbers lose precision above 2^53).
    public var seed: String
    /// The configuration the operations were drawn under.
    public var scenario: ScenarioConfiguration
    /// What failed.
    public var failure: Failure
    /// Each worker's operations in text form, or `null` if the scenario was too large (then the seed regenerates
    /// them).
    public var operations: [[String]]?
    /// The schedule a controlled run took (absent for chaos, or when too long: then the strategy and seed
    /// regenerate it).
    public var schedule: RecordedSchedule?
    /// One line saying what the file shows, for files kept on purpose (the regression corpus); absent otherwise.
    public var description: String?
    /// Set on a file written by `guard-stress shrink`: what it was shrunk from, and how.
    public var shrunk: Shrinking?

    /// A seed file for a run (usually a failed one).
    public init(result: RunResult, toolVersion: String, createdAt: Date = Date()) {
        format = Self.formatName
        version = Self.currentVersion
        self.toolVersion = toolVersion
        self.createdAt = ISO8601DateFormatter().string(from: createdAt)
        target = result.targetName
        seed = String(result.scenario.seed)
        scenario = result.scenario.configuration
        failure = Failure(
            signature: result.verdict.signature,
            violationCounts: Dictionary(uniqueKeysWithValues: result.verdict.violationCounts.map { ($0.key.rawValue, $0.value) }),
            runtimeMisuses: Dictionary(uniqueKeysWithValues: result.verdict.runtimeMisuses.map { ($0.key.rawValue, $0.value) }),
            examples: result.verdict.violations.map { "\($0.kind.rawValue): \($0.message)" })
        operations = result.scenario.operationCount <= Self.operationListLimit
            ? result.scenario.operations.map { $0.map(\.description) } : nil
        if let controlled = result.recording.controlled {
            runner = RunnerChoice.controlled(ControlledRunner.Settings()).name
            strategy = controlled.strategy.name
            depth = controlled.strategy.depth
            expectedSteps = controlled.expectedSteps
            stepLimit = controlled.stepLimit
            schedule = controlled.schedule.count <= Self.scheduleStepLimit
                ? RecordedSchedule(controlled.schedule, historyDigest: result.history.digest) : nil
        } else {
            runner = RunnerChoice.chaos.name
        }
    }

    /// The scenario to replay: the written operations if present, else regenerated from the seed.
    public func makeScenario() throws(SeedFileError) -> Scenario {
        guard let seedValue = UInt64(seed) else {
            throw .nonsensical("the seed \"\(seed)\" is not a whole number between 0 and \(UInt64.max)")
        }
        let problems = scenario.problems
        guard problems.isEmpty else { throw .nonsensical("the scenario is unusable: " + problems.joined(separator: "; ")) }
        guard let operations else { return Scenario(configuration: scenario, seed: seedValue) }
        var parsed: [[Operation]] = []
        for (worker, texts) in operations.enumerated() {
            var list: [Operation] = []
            for (index, text) in texts.enumerated() {
                guard let operation = Operation(text) else {
                    throw .nonsensical("worker \(worker) operation \(index) \"\(text)\" is not an operation")
                }
                list.append(operation)
            }
            parsed.append(list)
        }
        let replay = Scenario(configuration: scenario, seed: seedValue, operations: parsed)
        let scenarioProblems = replay.problems
        guard scenarioProblems.isEmpty else { throw .nonsensical(scenarioProblems.joined(separator: "; ")) }
        return replay
    }

    /// Whether the file names the controlled runner (whose runs replay exactly), not the chaos runner.
    public var isControlled: Bool { runner == RunnerChoice.controlled(.init()).name }

    /// The runner the file names, with its settings; every field that does not fit the runner is an error.
    public func makeRunnerChoice() throws(SeedFileError) -> RunnerChoice {
        switch runner {
        case "chaos":
            for (field, present) in [
                ("strategy", strategy != nil), ("depth", depth != nil), ("expectedSteps", expectedSteps != nil),
                ("stepLimit", stepLimit != nil), ("schedule", schedule != nil),
            ] where present {
                throw .nonsensical("a chaos seed file has no \"\(field)\" (only controlled runs are scheduled)")
            }
            return .chaos
        case "controlled":
            guard let strategy else {
                throw .nonsensical("a controlled seed file needs a \"strategy\" (\(StrategyChoice.names.joined(separator: " or ")))")
            }
            guard StrategyChoice.names.contains(strategy) else { throw .unknownStrategy(strategy) }
            var settings = ControlledRunner.Settings()
            do {
                settings.strategy = try StrategyChoice(name: strategy, depth: depth)
            } catch {
                throw .nonsensical("\(error)")
            }
            guard let stepLimit else { throw .nonsensical("a controlled seed file needs a \"stepLimit\"") }
            let limits = ControlledRunner.Settings.stepLimits
            guard limits.contains(stepLimit) else {
                throw .nonsensical(
                    "the step limit must be between \(limits.lowerBound) and \(limits.upperBound) (is \(stepLimit))")
            }
            settings.stepLimit = stepLimit
            if let expectedSteps {
                guard settings.strategy.depth != nil else {
                    throw .nonsensical("\"expectedSteps\" belongs to strategy pct, not \(strategy)")
                }
                guard (1...Schedule.maximumSteps).contains(expectedSteps) else {
                    throw .nonsensical(
                        "expectedSteps must be between 1 and \(Schedule.maximumSteps) (is \(expectedSteps))")
                }
                settings.expectedSteps = expectedSteps
            }
            return .controlled(settings)
        default:
            throw .unknownRunner(runner)
        }
    }

    /// The recorded schedule, checked against the scenario and the step limit; `nil` if the file has none.
    public func makeSchedule() throws(SeedFileError) -> Schedule? {
        guard let schedule else { return nil }
        let parsed: Schedule
        do {
            parsed = try Schedule(workersText: schedule.workers, pointsText: schedule.points)
        } catch {
            throw .nonsensical("the schedule cannot be read: \(error)")
        }
        guard parsed.count == schedule.steps else {
            throw .nonsensical("the schedule says it has \(schedule.steps) steps but lists \(parsed.count)")
        }
        if let worker = parsed.workers.first(where: { $0 >= scenario.workers }) {
            throw .nonsensical(
                "the schedule runs worker \(worker), but the scenario has \(scenario.workers) workers (0 to \(scenario.workers - 1))")
        }
        if let stepLimit, parsed.count > stepLimit {
            throw .nonsensical("the schedule has \(parsed.count) steps, more than the step limit of \(stepLimit)")
        }
        if let digest = schedule.historyDigest, digest.count != 16 || !digest.allSatisfy(\.isHexDigit) {
            throw .nonsensical("the history digest \"\(digest)\" is not 16 hexadecimal digits")
        }
        return parsed
    }
}
