@testable import FaultInjector
import FaultInjectorTestSupport
import Foundation
import GuardCore
import XCTest

/// A seed file's round run once: the file's scenario and runner against a target, judged, and for a controlled file
/// compared with the recorded schedule and history digest; ``Replayer`` repeats exactly that round.
final class SeedFileRoundTests: XCTestCase {
    private var directory: TemporaryDirectory!

    override func setUpWithError() throws {
        directory = try TemporaryDirectory("fi-round")
    }

    override func tearDown() {
        directory?.remove()
        directory = nil
    }

    private func file(_ data: Data, name: String) throws -> SeedFile {
        try SeedFileStore.read(try directory.write(data, to: name))
    }

    func testAControlledRoundFollowsItsRecordingAndFailsTheSameWay() throws {
        let file = try file(RunFixtures.controlledSeedFileData(), name: "whole.json")
        let round = try SeedFileRound(file: file)
        XCTAssertTrue(round.followsRecordedSchedule)
        XCTAssertNil(round.exactnessNotChecked)
        XCTAssertTrue(try round.makeRunner() is ControlledRunner)
        let outcome = try round.run()
        XCTAssertNil(outcome.mismatch)
        XCTAssertFalse(outcome.result.passed)
        XCTAssertEqual(outcome.result.verdict.signature, file.failure.signature)
        XCTAssertEqual(outcome.result.history.digest, file.schedule?.historyDigest)
        XCTAssertNil(outcome.result.recording.controlled?.trace, "no trace unless asked for")
    }

    func testAnotherRecordedHistoryIsAMismatch() throws {
        let data = try RunFixtures.editedControlledSeedFile {
            RunFixtures.setScheduleField("historyDigest", to: "0123456789abcdef", in: &$0)
        }
        let outcome = try SeedFileRound(file: file(data, name: "other-digest.json")).run()
        let mismatch = try XCTUnwrap(outcome.mismatch)
        XCTAssertTrue(mismatch.contains("the history differs"), mismatch)
        XCTAssertTrue(mismatch.contains("recorded 0123456789abcdef"), mismatch)
    }

    func testAnotherTargetTakesItsOwnScheduleAndSaysExactnessWasNotChecked() throws {
        let file = try file(RunFixtures.controlledSeedFileData(), name: "whole.json")
        let round = try SeedFileRound(file: file, target: GuardTarget(diagnostics: CountingSink(keepsEvents: false)))
        XCTAssertFalse(round.replaysRecordedTarget)
        XCTAssertFalse(round.followsRecordedSchedule)
        let reason = try XCTUnwrap(round.exactnessNotChecked)
        XCTAssertTrue(reason.contains("is not the file's"), reason)
        let outcome = try round.run()
        XCTAssertTrue(outcome.result.passed, "\(outcome.result.verdict.signature)")
        XCTAssertNil(outcome.mismatch)
    }

    func testAChaosRoundNeverClaimsExactnessAndUsesTheStallTimeout() throws {
        var round = try SeedFileRound(file: file(RunFixtures.rawSeedFileData(), name: "chaos.json"))
        round.chaosStallTimeout = 3
        XCTAssertFalse(round.followsRecordedSchedule)
        XCTAssertNil(round.exactnessNotChecked)
        let runner = try XCTUnwrap(try round.makeRunner() as? ChaosRunner)
        XCTAssertEqual(runner.deadlockTimeout, 3)
        let outcome = round.run(try round.file.makeScenario(), with: runner)
        XCTAssertNil(outcome.mismatch, "chaos is never compared with a recording")
        XCTAssertEqual(outcome.result.scenario.operationCount, RunFixtures.rawFailure.scenario.operationCount)
    }

    func testAnUnknownTargetIsAnError() throws {
        let data = try RunFixtures.editedRawSeedFile { $0["target"] = "no-such-target" }
        let path = try directory.write(data, to: "unknown.json")
        let file = try SeedFileStore.read(path, targets: ["no-such-target"])
        XCTAssertThrowsError(try SeedFileRound(file: file)) { error in
            guard case .unknownTarget(let name) = error as? SeedFileError else { return XCTFail("\(error)") }
            XCTAssertEqual(name, "no-such-target")
        }
    }

    func testTheReplayerRepeatsItsRound() throws {
        var round = try SeedFileRound(file: file(RunFixtures.controlledSeedFileData(), name: "whole.json"))
        round.recordsTrace = true
        let replayer = Replayer(round: round)
        XCTAssertTrue(replayer.recordsTrace)
        XCTAssertEqual(replayer.file.failure.signature, round.file.failure.signature)
        let outcome = try replayer.replay(runs: 2)
        XCTAssertEqual(outcome.runs, 2)
        XCTAssertEqual(outcome.exactRuns, 2, "\(outcome.mismatches)")
        XCTAssertNotNil(outcome.lastResult?.recording.controlled?.trace, "the round's trace setting carries over")
    }
}
