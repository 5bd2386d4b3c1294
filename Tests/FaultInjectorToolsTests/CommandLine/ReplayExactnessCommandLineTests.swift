import FaultInjector
import FaultInjectorTestSupport
@testable import FaultInjectorTools
import Foundation
import XCTest

/// `replay` calls a run exact only when it compared it with a recording: for a controlled file without its schedule or
/// history digest, its output and JSON report say exactness was not checked, and why.
final class ReplayExactnessCommandLineTests: XCTestCase {
    private var directory: TemporaryDirectory!

    override func setUpWithError() throws {
        directory = try TemporaryDirectory("fi-exactness")
    }

    override func tearDown() {
        directory?.remove()
        directory = nil
    }

    /// `replay` of a controlled file without its schedule (or digest): the failure reproduces (exit 1), the output
    /// says exactness was not checked and why, never "exact replay" (the phrase CI greps for), and the JSON report
    /// has `exactnessNotChecked` and no `exactRuns`.
    func testTheReplayCommandSaysExactnessWasNotCheckedAndWhy() throws {
        let cases: [(Data, String, String)] = [
            (try RunFixtures.controlledSeedFileWithoutSchedule(), "no-schedule.json", "no recorded schedule"),
            (try RunFixtures.controlledSeedFileWithoutDigest(), "no-digest.json", "schedule.historyDigest"),
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
