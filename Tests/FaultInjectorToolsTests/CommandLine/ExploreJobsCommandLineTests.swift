@testable import FaultInjector
import FaultInjectorTestSupport
import Foundation
import XCTest

/// `guard-stress explore SCENARIO --jobs N`, run as a subprocess (see ``GuardStressProcess``): one scenario's
/// executions in child processes give the answer one process gives, and a failure found there is written as a seed
/// file that replays.
final class ExploreJobsCommandLineTests: XCTestCase {
    private var directory: TemporaryDirectory!

    override func setUpWithError() throws {
        directory = try TemporaryDirectory("fi-explore-jobs")
    }

    override func tearDown() {
        directory?.remove()
        directory = nil
    }

    private func run(_ arguments: [String], file: StaticString = #filePath, line: UInt = #line) throws -> GuardStressProcess.Outcome {
        try GuardStressProcess.run(arguments, in: directory, timeout: 300, file: file, line: line)
    }

    private func report(_ name: String) throws -> ExplorationReport {
        try JSONDecoder().decode(ExplorationReport.self, from: Data(contentsOf: URL(fileURLWithPath: directory.file(name))))
    }

    /// A passing scenario: complete with every job count, in as many processes as asked, and every class met.
    func testChildProcessesGiveTheAnswerOneProcessGives() throws {
        let text = """
            worker 0:
              observe c0 o0 k0 [initial,new]
              mutate o0 k0
              unobserve c0 o0 k0
            worker 1:
              release-observer c0
              mutate o0 k0
              unobserve-all c0
            """
        try directory.write(Data(text.utf8), to: "race.scenario")
        var reports: [ExplorationReport] = []
        for jobs in ["1", "2", "3"] {
            let outcome = try run(["explore", "race.scenario", "--jobs", jobs, "--quiet", "--json", "j\(jobs).json"])
            XCTAssertEqual(outcome.status, 0, outcome.stdout + outcome.stderr)
            XCTAssertTrue(outcome.stdout.contains("RESULT: COMPLETE"), outcome.stdout)
            let report = try report("j\(jobs).json")
            XCTAssertEqual(report.answer, "complete")
            XCTAssertEqual(report.jobs, Int(jobs))
            reports.append(report)
        }
        XCTAssertGreaterThan(reports[0].classes, 100, "the scenario has many classes")
        XCTAssertEqual(reports[1].classes, reports[0].classes, "two jobs meet every class one job meets")
        XCTAssertEqual(reports[2].classes, reports[0].classes, "three jobs meet every class one job meets")
    }

    /// A passing answer for three workers says it is evidence, not a proof; one for two workers does not.
    func testAPassingAnswerForThreeWorkersSaysItIsNotAProof() throws {
        try directory.write(Data("worker 0:\n  mutate o0 k0\nworker 1:\n  mutate o0 k0\n".utf8), to: "two.scenario")
        try directory.write(
            Data("worker 0:\n  mutate o0 k0\nworker 1:\n  mutate o0 k0\nworker 2:\n  mutate o0 k0\n".utf8),
            to: "three.scenario")
        let two = try run(["explore", "two.scenario", "--jobs", "1", "--quiet"])
        XCTAssertEqual(two.status, 0, two.stdout + two.stderr)
        XCTAssertFalse(two.stdout.contains("not a proof"), two.stdout)
        let three = try run(["explore", "three.scenario", "--jobs", "1", "--quiet"])
        XCTAssertEqual(three.status, 0, three.stdout + three.stderr)
        XCTAssertTrue(three.stdout.contains("three or more workers"), three.stdout)
        XCTAssertTrue(three.stdout.contains("evidence, not a proof"), three.stdout)
    }

    /// Without `--jobs`, one scenario is explored in one child process per available processor.
    func testTheDefaultIsOneJobPerAvailableProcessor() throws {
        try directory.write(Data("worker 0:\n  mutate o0 k0\nworker 1:\n  mutate o0 k0\n".utf8), to: "two.scenario")
        let outcome = try run(["explore", "two.scenario", "--quiet", "--json", "d.json"])
        XCTAssertEqual(outcome.status, 0, outcome.stdout + outcome.stderr)
        XCTAssertEqual(try report("d.json").jobs, AvailableCores.count)
    }

    /// A planted bug found by children: exit 1, its seed file written, and the seed file replays the failure.
    func testAFailureFoundInChildProcessesIsWrittenAndReplays() throws {
        let scenario = try String(contentsOfFile: Self.scenarioPath("bug-lock-missing.scenario"), encoding: .utf8)
        try directory.write(Data(scenario.utf8), to: "bug.scenario")
        let outcome = try run(["explore", "bug.scenario", "--jobs", "2", "--no-shrink", "--out", "seeds", "--json", "b.json"])
        XCTAssertEqual(outcome.status, 1, outcome.stdout + outcome.stderr)
        let report = try report("b.json")
        XCTAssertEqual(report.answer, "violation")
        XCTAssertEqual(report.jobs, 2)
        let signature = try XCTUnwrap(report.failure?.signature)
        XCTAssertFalse(signature.isEmpty)
        let seeds = try FileManager.default.contentsOfDirectory(atPath: directory.file("seeds")).filter { $0.hasSuffix(".json") }
        let seed = try XCTUnwrap(seeds.first, "a seed file was written")
        let replay = try run(["replay", "seeds/\(seed)", "--runs", "3"])
        XCTAssertEqual(replay.status, 1, "the seed file replays the failure: " + replay.stdout + replay.stderr)
        XCTAssertTrue(replay.stdout.contains("3/3"), replay.stdout)
    }

    /// The repository's scenario directory.
    private static func scenarioPath(_ name: String) -> String {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("StressTests/Scenarios/\(name)").path
    }
}
