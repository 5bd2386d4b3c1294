@testable import FaultInjector
@testable import FaultInjectorTools
import Foundation
import XCTest

/// A replay calls a run exact only when it compared it with a recording: the file's schedule, followed step for
/// step, and the history digest recorded with it. A controlled file without either says exactness was not checked
/// (and why), in the replay's output, its JSON report and the explanation, and never counts a run exact.
final class ReplayExactnessTests: XCTestCase {
    private var directory: TemporaryDirectory!

    override func setUpWithError() throws {
        directory = try TemporaryDirectory("fi-exactness")
    }

    override func tearDown() {
        directory?.remove()
        directory = nil
    }

    /// The fixture's failing controlled raw-runtime file without its schedule.
    private func withoutSchedule() throws -> Data {
        try RunFixtures.editedControlledSeedFile { $0["schedule"] = nil }
    }

    /// The fixture's failing controlled raw-runtime file whose schedule has no history digest.
    private func withoutDigest() throws -> Data {
        try RunFixtures.editedControlledSeedFile { RunFixtures.setScheduleField("historyDigest", to: nil, in: &$0) }
    }

    private func replayer(_ data: Data, name: String) throws -> Replayer {
        let path = try directory.write(data, to: name)
        return try Replayer(file: SeedFileStore.read(path))
    }

    // MARK: The library

    func testAFileWithItsScheduleAndDigestIsCheckedAndExact() throws {
        let replayer = try replayer(RunFixtures.controlledSeedFileData(), name: "whole.json")
        XCTAssertNil(replayer.exactnessNotChecked)
        let outcome = try replayer.replay(runs: 2)
        XCTAssertEqual(outcome.exactRuns, 2, "\(outcome.mismatches)")
        XCTAssertNil(outcome.exactnessNotChecked)
    }

    func testAFileWithoutItsScheduleIsNeverCountedExact() throws {
        let replayer = try replayer(withoutSchedule(), name: "no-schedule.json")
        let outcome = try replayer.replay(runs: 2)
        XCTAssertEqual(outcome.violatedRuns, 2, "the failure still reproduces (the strategy and seed regenerate the run)")
        XCTAssertNil(outcome.exactRuns)
        let reason = try XCTUnwrap(outcome.exactnessNotChecked)
        XCTAssertTrue(reason.contains("the file has no recorded schedule"), reason)
    }

    func testAFileWithoutItsHistoryDigestIsNeverCountedExact() throws {
        let replayer = try replayer(withoutDigest(), name: "no-digest.json")
        XCTAssertTrue(replayer.followsRecordedSchedule)
        let outcome = try replayer.replay(runs: 2)
        XCTAssertEqual(outcome.violatedRuns, 2)
        XCTAssertNil(outcome.exactRuns)
        XCTAssertEqual(outcome.mismatches, [], "the schedule itself was followed")
        let reason = try XCTUnwrap(outcome.exactnessNotChecked)
        XCTAssertTrue(reason.contains("schedule.historyDigest"), reason)
    }

    func testRunsInChildProcessesAreNeverCountedExactWithoutARecording() throws {
        let replayer = try replayer(withoutSchedule(), name: "no-schedule.json")
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

    func testTheExplanationDoesNotClaimTheSameHistoryWithoutADigest() throws {
        let path = try directory.write(withoutDigest(), to: "no-digest.json")
        let story = try Explainer(file: SeedFileStore.read(path), fileName: "no-digest.json").explain()
        XCTAssertFalse(story.header.provenance.contains("exact replay"), story.header.provenance)
        XCTAssertTrue(story.header.provenance.contains("was not checked"), story.header.provenance)
    }

    /// The explanation gives the same reason the replay gives (one rule decides both), never a wording of its own.
    func testTheExplanationGivesTheReplaysReasonWhenExactnessWasNotChecked() throws {
        for (data, name) in [(try withoutSchedule(), "no-schedule.json"), (try withoutDigest(), "no-digest.json")] {
            let file = try SeedFileStore.read(try directory.write(data, to: name))
            let reason = try XCTUnwrap(try Replayer(file: file).replay(runs: 1).exactnessNotChecked, name)
            let story = try Explainer(file: file, fileName: name).explain()
            XCTAssertTrue(story.header.provenance.hasSuffix("was not checked: " + reason), "\(name): \(story.header.provenance)")
        }
    }

    // MARK: The command line

    /// `replay` of a controlled file without its schedule (or digest): the failure reproduces (exit 1), the output
    /// says exactness was not checked and why, never "exact replay" (the phrase CI greps for), and the JSON report
    /// has `exactnessNotChecked` and no `exactRuns`.
    func testTheReplayCommandSaysExactnessWasNotCheckedAndWhy() throws {
        let cases: [(Data, String, String)] = [
            (try withoutSchedule(), "no-schedule.json", "no recorded schedule"),
            (try withoutDigest(), "no-digest.json", "schedule.historyDigest"),
        ]
        for (data, name, why) in cases {
            try directory.write(data, to: name)
            let report = "report-\(name)"
            let outcome = try GuardStressProcess.run(["replay", name, "--runs", "2", "--json", report], in: directory, timeout: 60)
            XCTAssertEqual(outcome.status, 1, "\(name): the failure reproduced: \(outcome.stdout)\(outcome.stderr)")
            XCTAssertFalse(outcome.stdout.contains("exact replay"), "\(name): \(outcome.stdout)")
            XCTAssertTrue(outcome.stdout.contains("exactness NOT CHECKED: "), "\(name): \(outcome.stdout)")
            XCTAssertTrue(outcome.stdout.contains(why), "\(name): \(outcome.stdout)")
            let json = try XCTUnwrap(
                try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: directory.file(report)))) as? [String: Any])
            let replay = try XCTUnwrap(json["replay"] as? [String: Any])
            XCTAssertNil(replay["exactRuns"], "\(name): \(replay)")
            XCTAssertTrue((replay["exactnessNotChecked"] as? String)?.contains(why) ?? false, "\(name): \(replay)")
            XCTAssertEqual(json["result"] as? String, "reproduced")
        }
    }

    /// The same command on the whole file still claims exactness (and the JSON counts the exact runs).
    func testTheReplayCommandStillSaysExactReplayForAWholeFile() throws {
        try directory.write(RunFixtures.controlledSeedFileData(), to: "whole.json")
        let outcome = try GuardStressProcess.run(["replay", "whole.json", "--runs", "2", "--json", "r.json"], in: directory, timeout: 60)
        XCTAssertEqual(outcome.status, 1, outcome.stderr)
        XCTAssertTrue(outcome.stdout.contains("exact replay: every run followed the schedule"), outcome.stdout)
        XCTAssertFalse(outcome.stdout.contains("NOT CHECKED"), outcome.stdout)
        let json = try XCTUnwrap(
            try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: directory.file("r.json")))) as? [String: Any])
        let replay = try XCTUnwrap(json["replay"] as? [String: Any])
        XCTAssertEqual(replay["exactRuns"] as? Int, 2)
        XCTAssertNil(replay["exactnessNotChecked"])
    }
}
