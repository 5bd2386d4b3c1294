import Foundation

extension SeedFile {
    /// The failure signature of a seed file written before its round ran: if it is still there after the
    /// campaign, the round never finished (the process running it crashed, was killed, or hung).
    public static let unfinishedSignature = "unfinished"

    /// The seed file of a round about to run, written before it runs so that even a crash of the whole process
    /// leaves something to replay: the scenario's seed and configuration (the seed regenerates the operations), the
    /// runner with its settings (for PCT, the expected step count the round uses), and the failure
    /// ``unfinishedSignature``.
    public init(roundAboutToRun scenario: Scenario, target: String, runner: RunnerChoice, toolVersion: String, createdAt: Date = Date()) {
        format = Self.formatName
        version = Self.currentVersion
        self.toolVersion = toolVersion
        self.createdAt = ISO8601DateFormatter().string(from: createdAt)
        self.target = target
        seed = String(scenario.seed)
        self.scenario = scenario.configuration
        failure = Failure(
            signature: Self.unfinishedSignature, violationCounts: [:], runtimeMisuses: [:],
            examples: ["written before the round ran; the round never finished (its process crashed, was killed or hung)"])
        operations = nil
        schedule = nil
        self.runner = runner.name
        if let controlled = runner.controlledSettings {
            strategy = controlled.strategy.name
            depth = controlled.strategy.depth
            expectedSteps = controlled.strategy.depth == nil
                ? nil : controlled.expectedSteps ?? ControlledRunner.Settings.estimatedSteps(for: scenario)
            stepLimit = controlled.stepLimit
        }
    }

    /// This file with the failure `report` found, and `scenario`'s operations written out (when not too many):
    /// the seed file of a round whose process crashed, trapped or hung, built by the parent that saw it happen.
    func finished(with report: OracleReport, scenario: Scenario) -> SeedFile {
        var file = self
        file.failure = Failure(
            signature: report.signature,
            violationCounts: Dictionary(uniqueKeysWithValues: report.violationCounts.map { ($0.key.rawValue, $0.value) }),
            runtimeMisuses: Dictionary(uniqueKeysWithValues: report.runtimeMisuses.map { ($0.key.rawValue, $0.value) }),
            examples: report.violations.map { "\($0.kind.rawValue): \($0.message)" })
        file.operations = scenario.operationCount <= Self.operationListLimit
            ? scenario.operations.map { $0.map(\.description) } : nil
        return file
    }
}

/// A round's seed file on disk while the round runs (`seed-TARGET-SEED.running.json`), removed when the round
/// has finished (a failing round gets its seed file under the usual name).
struct UnfinishedSeedFile {
    /// Where it is.
    let path: String

    /// Writes `encoded` (a ``SeedFile`` as JSON) for the round into `directory`, replacing a leftover of an
    /// earlier campaign with the same seed.
    init(_ file: SeedFile, encoded: Data, into directory: String) throws {
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        path = (directory as NSString).appendingPathComponent(SeedFileStore.baseName(for: file) + ".running.json")
        try encoded.write(to: URL(fileURLWithPath: path))
    }

    /// Removes the file.
    func remove() {
        try? FileManager.default.removeItem(atPath: path)
    }
}
