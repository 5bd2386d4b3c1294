@testable import FaultInjector
import Foundation
import GuardCore

/// Small chaos runs shared by the tests (each is made once per test process; the runner serializes runs).
package enum RunFixtures {
    /// 12 queues × 150 operations with the default mix and faults.
    package static func configuration(workers: Int = 12, operations: Int = 150) -> ScenarioConfiguration {
        var configuration = ScenarioConfiguration()
        configuration.workers = workers
        configuration.operationsPerWorker = operations
        return configuration
    }

    package static let scenario = Scenario(configuration: configuration(), seed: 5)

    /// The raw runtime on ``scenario``: removals of unregistered observers reach the runtime.
    package static let rawFailure: RunResult = ChaosRunner().runAndEvaluate(scenario, against: RawRuntimeTarget())

    /// The guard on ``scenario``.
    package static let guardPass: RunResult = ChaosRunner().runAndEvaluate(scenario, against: GuardTarget(diagnostics: CountingSink(keepsEvents: false)))

    /// The raw runtime on a small controlled scenario (PCT depth 3): a failing controlled run.
    package static let controlledRawFailure: RunResult = ControlledRunner().runAndEvaluate(
        Scenario(configuration: ScenarioConfiguration.controlledDefault, seed: 5), against: RawRuntimeTarget())

    /// ``rawFailure`` as seed file JSON (pretty-printed, as `SeedFileStore` writes it).
    package static func rawSeedFileData() throws -> Data {
        try seedFileData(rawFailure)
    }

    /// ``controlledRawFailure`` as seed file JSON.
    package static func controlledSeedFileData() throws -> Data {
        try seedFileData(controlledRawFailure)
    }

    private static func seedFileData(_ result: RunResult) throws -> Data {
        let directory = try TemporaryDirectory("fi-fixture")
        defer { directory.remove() }
        let path = try SeedFileStore.write(SeedFile(result: result, toolVersion: ToolVersion.current), into: directory.path)
        return try Data(contentsOf: URL(fileURLWithPath: path))
    }

    /// ``rawSeedFileData()`` decoded as a JSON object, edited by `edit`, and encoded again.
    package static func editedRawSeedFile(_ edit: (inout [String: Any]) -> Void) throws -> Data {
        try edited(rawSeedFileData(), edit)
    }

    /// ``controlledSeedFileData()`` decoded as a JSON object, edited by `edit`, and encoded again.
    package static func editedControlledSeedFile(_ edit: (inout [String: Any]) -> Void) throws -> Data {
        try edited(controlledSeedFileData(), edit)
    }

    /// The fixture's failing controlled raw-runtime file without its schedule.
    package static func controlledSeedFileWithoutSchedule() throws -> Data {
        try editedControlledSeedFile { $0["schedule"] = nil }
    }

    /// The fixture's failing controlled raw-runtime file whose schedule has no history digest.
    package static func controlledSeedFileWithoutDigest() throws -> Data {
        try editedControlledSeedFile { setScheduleField("historyDigest", to: nil, in: &$0) }
    }

    private static func edited(_ data: Data, _ edit: (inout [String: Any]) -> Void) throws -> Data {
        guard var object = try JSONSerialization.jsonObject(with: data) as? [String: Any] else {
            throw CocoaError(.coderReadCorrupt)
        }
        edit(&object)
        return try JSONSerialization.data(withJSONObject: object, options: [.prettyPrinted, .sortedKeys])
    }

    /// Sets the field `name` of a seed file object's `schedule` to `value` (`nil` removes it).
    package static func setScheduleField(_ name: String, to value: Any?, in object: inout [String: Any]) {
        var schedule = object["schedule"] as? [String: Any] ?? [:]
        schedule[name] = value
        object["schedule"] = schedule
    }

    /// Sets the field `name` of a seed file object's `scenario` to `value` (`nil` removes it).
    package static func setScenarioField(_ name: String, to value: Any?, in object: inout [String: Any]) {
        var scenario = object["scenario"] as? [String: Any] ?? [:]
        scenario[name] = value
        object["scenario"] = scenario
    }

    /// Edits the operation texts of a seed file object (one list per worker).
    package static func editOperations(in object: inout [String: Any], _ edit: (inout [[String]]) -> Void) {
        var operations = object["operations"] as? [[String]] ?? []
        edit(&operations)
        object["operations"] = operations
    }
}
