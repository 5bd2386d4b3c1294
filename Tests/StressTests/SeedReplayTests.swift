import FaultInjector
import Foundation
import GuardCore
import XCTest

/// A failing run written as a seed file replays: read back, it reproduces its failure; the guard passes the same
/// operations.
final class SeedReplayTests: XCTestCase {
    private var directory: String!

    override func setUpWithError() throws {
        directory = NSTemporaryDirectory() + "kvoguard-seeds-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(atPath: directory)
    }

    func testAWrittenSeedFileReplaysItsFailure() throws {
        let scenario = Scenario(configuration: StressProfile.removalChurn.configuration, seed: 3_001)
        let original = ChaosRunner().runAndEvaluate(scenario, against: RawRuntimeTarget())
        XCTAssertFalse(original.passed)

        let path = try SeedFileStore.write(SeedFile(result: original, toolVersion: ToolVersion.current), into: directory)
        let file = try SeedFileStore.read(path)
        XCTAssertEqual(file.target, "raw")
        XCTAssertEqual(file.failure.signature, original.verdict.signature)
        XCTAssertEqual(try file.makeScenario(), scenario, "the file must carry exactly the operations that ran")

        let outcome = try Replayer(file: file).replay(runs: 2)
        XCTAssertEqual(outcome.violatedRuns, 2, "the failure did not come back: \(outcome.signatures)")
        for signature in outcome.signatures {
            XCTAssertTrue(signature.contains("notRegistered"), signature)
        }

        let guarded = try Replayer(file: file, target: GuardTarget(diagnostics: CountingSink(keepsEvents: false)))
            .replay(runs: 1)
        XCTAssertEqual(guarded.violatedRuns, 0, "the guard failed the same operations: \(guarded.signatures)")
    }
}
