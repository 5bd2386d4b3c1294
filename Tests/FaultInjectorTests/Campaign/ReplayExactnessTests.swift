@testable import FaultInjector
import FaultInjectorTestSupport
import Foundation
import XCTest

/// A replay calls a run exact only when it compared it with a recording: the file's schedule, followed step for
/// step, and the history digest recorded with it. A controlled file without either says exactness was not checked
/// (and why) and never counts a run exact. (The explanation and the `replay` command say the same: see
/// `ExplainExactnessTests` and `ReplayExactnessCommandLineTests` in FaultInjectorToolsTests.)
final class ReplayExactnessTests: XCTestCase {
    private var directory: TemporaryDirectory!

    override func setUpWithError() throws {
        directory = try TemporaryDirectory("fi-exactness")
    }

    override func tearDown() {
        directory?.remove()
        directory = nil
    }

    private func replayer(_ data: Data, name: String) throws -> Replayer {
        let path = try directory.write(data, to: name)
        return try Replayer(file: SeedFileStore.read(path))
    }

    func testAFileWithItsScheduleAndDigestIsCheckedAndExact() throws {
        let replayer = try replayer(RunFixtures.controlledSeedFileData(), name: "whole.json")
        XCTAssertNil(replayer.exactnessNotChecked)
        let outcome = try replayer.replay(runs: 2)
        XCTAssertEqual(outcome.exactRuns, 2, "\(outcome.mismatches)")
        XCTAssertNil(outcome.exactnessNotChecked)
    }

    func testAFileWithoutItsScheduleIsNeverCountedExact() throws {
        let replayer = try replayer(RunFixtures.controlledSeedFileWithoutSchedule(), name: "no-schedule.json")
        let outcome = try replayer.replay(runs: 2)
        XCTAssertEqual(outcome.violatedRuns, 2, "the failure still reproduces (the strategy and seed regenerate the run)")
        XCTAssertNil(outcome.exactRuns)
        let reason = try XCTUnwrap(outcome.exactnessNotChecked)
        XCTAssertTrue(reason.contains("the file has no recorded schedule"), reason)
    }

    func testAFileWithoutItsHistoryDigestIsNeverCountedExact() throws {
        let replayer = try replayer(RunFixtures.controlledSeedFileWithoutDigest(), name: "no-digest.json")
        XCTAssertTrue(replayer.followsRecordedSchedule)
        let outcome = try replayer.replay(runs: 2)
        XCTAssertEqual(outcome.violatedRuns, 2)
        XCTAssertNil(outcome.exactRuns)
        XCTAssertEqual(outcome.mismatches, [], "the schedule itself was followed")
        let reason = try XCTUnwrap(outcome.exactnessNotChecked)
        XCTAssertTrue(reason.contains("schedule.historyDigest"), reason)
    }

    func testRunsInChildProcessesAreNeverCountedExactWithoutARecording() throws {
        let replayer = try replayer(RunFixtures.controlledSeedFileWithoutSchedule(), name: "no-schedule.json")
        let outcome = try replayer.replay(runs: 2, isolatedBy: ChildProcessSettings(executable: GuardStressProcess.executable().path, arguments: ["__serve-rounds"]))
        XCTAssertEqual(outcome.crashedRuns, 0)
        XCTAssertEqual(outcome.violatedRuns, 2)
        XCTAssertNil(outcome.exactRuns)
        XCTAssertNotNil(outcome.exactnessNotChecked)
    }

    func testAChaosFileNeverClaimsExactnessNorSaysItWasNotChecked() throws {
        let replayer = try replayer(RunFixtures.rawSeedFileData(), name: "chaos.json")
        let outcome = try replayer.replay(runs: 1)
        XCTAssertNil(outcome.exactRuns)
        XCTAssertNil(outcome.exactnessNotChecked, "a chaos replay has a rate, never an exactness to check")
    }
}
