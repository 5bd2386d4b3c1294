import Foundation

/// A failing run written down so anyone can replay it: versioned JSON holding the tool version, the target, the
/// runner, the seed and scenario configuration, the failure signature with the first violations, and (when not too
/// long) every worker's operations in their one-line text form.
///
/// ```json
/// { "format": "kvoguard-seed", "version": 1, "toolVersion": "0.1.0", "target": "raw", "runner": "chaos",
///   "seed": "1234", "scenario": { ... }, "failure": { "signature": "runtime-misuse(notRegistered)", ... },
///   "operations": [["observe c1 o0 k0 [initial,new]", "mutate o0 k0", ...], ...] }
/// ```
public struct SeedFile: Codable, Sendable, Equatable {
    /// The value of `format` in every seed file.
    public static let formatName = "kvoguard-seed"
    /// The version this build writes and reads.
    public static let currentVersion = 1
    /// Operations are written out only up to this many in all; larger scenarios are regenerated from the seed.
    public static let operationListLimit = 200_000

    /// What failed.
    public struct Failure: Codable, Sendable, Equatable {
        /// ``OracleReport/signature``: violation kinds and runtime misuse kinds.
        public var signature: String
        /// Violations counted by kind (`missing-delivery: 3`).
        public var violationCounts: [String: Int]
        /// Runtime misuses counted by kind.
        public var runtimeMisuses: [String: Int]
        /// The first violations, in full.
        public var examples: [String]
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
    /// `chaos` (real threads; replays the operations, not the interleaving).
    public var runner: String
    /// The scheduling strategy of a controlled runner; `null` for chaos.
    public var strategy: String?
    /// The scenario seed, as a decimal string (JSON numbers lose precision above 2^53).
    public var seed: String
    /// The configuration the operations were drawn under.
    public var scenario: ScenarioConfiguration
    /// What failed.
    public var failure: Failure
    /// Each worker's operations in text form, or `null` if the scenario was too large (then the seed regenerates
    /// them).
    public var operations: [[String]]?

    /// A seed file for a failed run.
    public init(result: RunResult, toolVersion: String, createdAt: Date = Date()) {
        format = Self.formatName
        version = Self.currentVersion
        self.toolVersion = toolVersion
        self.createdAt = ISO8601DateFormatter().string(from: createdAt)
        target = result.targetName
        runner = "chaos"
        strategy = nil
        seed = String(result.scenario.seed)
        scenario = result.scenario.configuration
        failure = Failure(
            signature: result.report.signature,
            violationCounts: Dictionary(uniqueKeysWithValues: result.report.violationCounts.map { ($0.key.rawValue, $0.value) }),
            runtimeMisuses: Dictionary(uniqueKeysWithValues: result.report.runtimeMisuses.map { ($0.key.rawValue, $0.value) }),
            examples: result.report.violations.map { "\($0.kind.rawValue): \($0.message)" })
        operations = result.scenario.operationCount <= Self.operationListLimit
            ? result.scenario.operations.map { $0.map(\.description) } : nil
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
}
