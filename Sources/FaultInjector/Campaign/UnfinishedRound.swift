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
        self.init(
            roundAboutToRun: scenario.seed, configuration: scenario.configuration, operationCount: scenario.operationCount,
            target: target, runner: runner, toolVersion: toolVersion, createdAt: createdAt)
    }

    /// The same, from the scenario's seed, configuration and size, without drawing its operations.
    init(
        roundAboutToRun seed: UInt64, configuration: ScenarioConfiguration, operationCount: Int, target: String,
        runner: RunnerChoice, toolVersion: String, createdAt: Date = Date()
    ) {
        format = Self.formatName
        version = Self.currentVersion
        self.toolVersion = toolVersion
        self.createdAt = Self.timestamp(createdAt)
        self.target = target
        self.seed = String(seed)
        scenario = configuration
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
                ? nil : controlled.expectedSteps ?? ControlledRunner.Settings.estimatedSteps(operations: operationCount)
            stepLimit = controlled.stepLimit
        }
    }

    /// `1970-01-01T00:00:00Z`: what ``ISO8601DateFormatter`` writes, without making one per round (on Linux each
    /// one reads the time zone database).
    static func timestamp(_ date: Date) -> String {
        var seconds = time_t(date.timeIntervalSince1970.rounded(.down))
        var parts = tm()
        guard gmtime_r(&seconds, &parts) != nil else { return ISO8601DateFormatter().string(from: date) }
        return String(
            format: "%04d-%02d-%02dT%02d:%02d:%02dZ", Int(parts.tm_year) + 1900, Int(parts.tm_mon) + 1, Int(parts.tm_mday),
            Int(parts.tm_hour), Int(parts.tm_min), Int(parts.tm_sec))
    }

    /// This file with the failure `verdict` found, and `scenario`'s operations written out (when not too many):
    /// the seed file of a round whose process crashed, trapped or hung, built by the parent that saw it happen.
    package func finished(with verdict: Verdict, scenario: Scenario) -> SeedFile {
        var file = self
        file.failure = Failure(
            signature: verdict.signature,
            violationCounts: Dictionary(uniqueKeysWithValues: verdict.violationCounts.map { ($0.key.rawValue, $0.value) }),
            runtimeMisuses: Dictionary(uniqueKeysWithValues: verdict.runtimeMisuses.map { ($0.key.rawValue, $0.value) }),
            examples: verdict.violations.map { "\($0.kind.rawValue): \($0.message)" })
        file.operations = scenario.operationCount <= Self.operationListLimit
            ? scenario.operations.map { $0.map(\.description) } : nil
        return file
    }
}

/// A round's seed file on disk while the round runs (`seed-TARGET-SEED.running.json`), removed when the round
/// has finished (a failing round gets its seed file under the usual name).
///
/// It is written with plain `write(2)`, not `Data.write`, which syncs every file to the disk: the file must
/// survive the crash of a process, not of the machine, and a sync per round would halve a controlled campaign's
/// rounds per second.
struct UnfinishedSeedFile: Sendable {
    /// Where it is.
    let path: String

    /// Writes `encoded` (a ``SeedFile`` as JSON) for the round into `directory` (created if needed), replacing a
    /// leftover of an earlier campaign with the same seed.
    init(_ file: SeedFile, encoded: Data, into directory: String) throws {
        path = (directory as NSString).appendingPathComponent(SeedFileStore.baseName(for: file) + ".running.json")
        var descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        if descriptor < 0, errno == ENOENT {
            try DirectoryCreation.ensure(directory)
            descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        }
        guard descriptor >= 0 else { throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: path]) }
        defer { close(descriptor) }
        let complete = encoded.withUnsafeBytes { bytes -> Bool in
            var offset = 0
            while offset < bytes.count {
                let written = write(descriptor, bytes.baseAddress! + offset, bytes.count - offset)
                if written < 0, errno == EINTR { continue }
                guard written > 0 else { return false }
                offset += written
            }
            return true
        }
        guard complete else { throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: path]) }
    }

    /// Removes the file.
    func remove() {
        unlink(path)
    }
}
