import FaultInjector
import FaultInjectorTestSupport
import Foundation
import XCTest

#if canImport(FoundationXML)
import FoundationXML
#endif

/// Round isolation end to end: `guard-stress run` against the test-fixture targets that segfault, trap or hang
/// (``CrashFixtureTarget``) reports each as a verdict of its round, writes a seed file that replays it, goes on with
/// the campaign and prints its summary; `--json` and `--junit` describe the same in files machines read.
final class IsolationCommandLineTests: XCTestCase {
    private var directory: TemporaryDirectory!

    override func setUpWithError() throws {
        directory = try TemporaryDirectory("fi-isolation")
    }

    override func tearDown() {
        directory?.remove()
        directory = nil
    }

    private typealias Outcome = GuardStressProcess.Outcome

    private func run(
        _ arguments: [String], timeout: Double = 60, allowsCrash: Bool = false, file: StaticString = #filePath,
        line: UInt = #line
    ) throws -> Outcome {
        try GuardStressProcess.run(arguments, in: directory, timeout: timeout, allowsCrash: allowsCrash, file: file, line: line)
    }

    /// One worker with four operations per round: a round fails exactly when it observes, so the same
    /// campaign seed fails in the same rounds every time (and some rounds pass).
    private func fixtureCampaign(_ target: String, seed: String, rounds: Int, extra: [String] = []) -> [String] {
        [
            "run", "--target", target, "--queues", "1", "--ops-per-queue", "4", "--ops", String(4 * rounds), "--seed", seed,
            "--duration", "60", "--out", directory.file("seeds"), "--json", directory.file("report.json"), "--junit",
            directory.file("report.xml"),
        ] + extra
    }

    private func jsonReport(_ name: String = "report.json") throws -> [String: Any] {
        let data = try Data(contentsOf: URL(fileURLWithPath: directory.file(name)))
        return try XCTUnwrap(try JSONSerialization.jsonObject(with: data) as? [String: Any], "not a JSON object")
    }

    private func junitReport(_ name: String = "report.xml") throws -> XMLElement {
        let data = try Data(contentsOf: URL(fileURLWithPath: directory.file(name)))
        let document = try XMLDocument(data: data, options: [])
        return try XCTUnwrap(document.rootElement())
    }

    /// The failing rounds of a report: (round, signature, seed file, log).
    private func failingRounds(_ report: [String: Any]) throws -> [[String: Any]] {
        let run = try XCTUnwrap(report["run"] as? [String: Any])
        return try XCTUnwrap(run["failingRounds"] as? [[String: Any]])
    }

    /// Asserts a campaign against a crashing fixture: exit 1, every round ran, some failed with `signature` and some
    /// passed, each failing round printed as it happened and written as a seed file (nothing left `.running`), the
    /// summary printed; the JSON and JUnit reports agree. Returns the failing rounds' seed files.
    @discardableResult
    private func assertCrashCampaign(
        _ outcome: Outcome, rounds: Int, signature: String, kind: String, file: StaticString = #filePath, line: UInt = #line
    ) throws -> [String] {
        XCTAssertEqual(outcome.status, 1, outcome.stdout + outcome.stderr, file: file, line: line)
        XCTAssertTrue(outcome.stdout.contains("KVOGuard stress campaign: target fixture-"), outcome.stdout, file: file, line: line)
        XCTAssertTrue(outcome.stdout.contains("  rounds            \(rounds)"), outcome.stdout, file: file, line: line)
        XCTAssertTrue(outcome.stdout.contains("RESULT: FAIL ("), outcome.stdout, file: file, line: line)
        XCTAssertTrue(outcome.stdout.contains("rounds violated the oracle: \(signature))"), outcome.stdout, file: file, line: line)
        XCTAssertTrue(outcome.stdout.contains("  isolation         "), outcome.stdout, file: file, line: line)
        XCTAssertTrue(outcome.stderr.contains(" FAILED \(signature): \(kind): "), outcome.stderr, file: file, line: line)

        let report = try jsonReport()
        XCTAssertEqual(report["format"] as? String, "kvoguard-stress-report", file: file, line: line)
        XCTAssertEqual(report["version"] as? Int, 1, file: file, line: line)
        XCTAssertEqual(report["command"] as? String, "run", file: file, line: line)
        XCTAssertEqual(report["result"] as? String, "fail", file: file, line: line)
        XCTAssertEqual(report["exitCode"] as? Int, 1, file: file, line: line)
        XCTAssertEqual((report["isolation"] as? [String: Any])?["mode"] as? String, "process", file: file, line: line)
        let totals = try XCTUnwrap(report["totals"] as? [String: Any], file: file, line: line)
        XCTAssertEqual(totals["rounds"] as? Int, rounds, file: file, line: line)
        let failing = try failingRounds(report)
        XCTAssertGreaterThan(failing.count, 0, file: file, line: line)
        XCTAssertLessThan(failing.count, rounds, "some rounds never observe and pass", file: file, line: line)
        let violations = try XCTUnwrap(report["violations"] as? [String: Any], file: file, line: line)
        XCTAssertEqual((violations["byKind"] as? [String: Int])?[kind], failing.count, file: file, line: line)
        var seedFiles: [String] = []
        for round in failing {
            XCTAssertEqual(round["signature"] as? String, signature, file: file, line: line)
            XCTAssertNotNil(UInt64(round["seed"] as? String ?? ""), "seeds are decimal strings", file: file, line: line)
            let seedFile = try XCTUnwrap(round["seedFile"] as? String, file: file, line: line)
            XCTAssertTrue(FileManager.default.fileExists(atPath: seedFile), seedFile, file: file, line: line)
            XCTAssertTrue(outcome.stderr.contains("seed file \(seedFile)"), outcome.stderr, file: file, line: line)
            XCTAssertEqual(try SeedFileStore.read(seedFile).failure.signature, signature, file: file, line: line)
            seedFiles.append(seedFile)
        }
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: directory.file("seeds"))
            .filter { $0.hasSuffix(".running.json") }
        XCTAssertEqual(leftovers, [], "each round's seed file written before it ran is removed after", file: file, line: line)

        let suites = try junitReport()
        XCTAssertEqual(suites.name, "testsuites", file: file, line: line)
        XCTAssertEqual(suites.attribute(forName: "tests")?.stringValue, String(rounds), file: file, line: line)
        XCTAssertEqual(suites.attribute(forName: "failures")?.stringValue, String(failing.count), file: file, line: line)
        let cases = suites.elements(forName: "testsuite").flatMap { $0.elements(forName: "testcase") }
        XCTAssertEqual(cases.count, rounds, file: file, line: line)
        let failures = cases.flatMap { $0.elements(forName: "failure") }
        XCTAssertEqual(failures.count, failing.count, file: file, line: line)
        for failure in failures {
            XCTAssertEqual(failure.attribute(forName: "message")?.stringValue, signature, file: file, line: line)
            XCTAssertEqual(failure.attribute(forName: "type")?.stringValue, kind, file: file, line: line)
            XCTAssertTrue(failure.stringValue?.contains("replay: guard-stress replay ") ?? false, file: file, line: line)
        }
        return seedFiles
    }

    /// Replays `seedFile` and asserts it reproduces `signature` in every run.
    private func assertReplayReproduces(
        _ seedFile: String, signature: String, runs: Int = 2, extra: [String] = [], file: StaticString = #filePath,
        line: UInt = #line
    ) throws {
        let replay = try run(["replay", seedFile, "--runs", String(runs), "--json", directory.file("replay.json")] + extra)
        XCTAssertEqual(replay.status, 1, replay.stdout + replay.stderr, file: file, line: line)
        XCTAssertTrue(replay.stdout.contains("each run in a child process"), replay.stdout, file: file, line: line)
        XCTAssertTrue(
            replay.stdout.contains("reproduced in \(runs)/\(runs) runs; with the recorded signature in \(runs)/\(runs)"),
            replay.stdout, file: file, line: line)
        XCTAssertTrue(replay.stdout.contains("run 1: violated: \(signature)"), replay.stdout, file: file, line: line)
        XCTAssertTrue(
            replay.stdout.hasSuffix(
                "RESULT: REPRODUCED (the recorded failure came back in \(runs) of \(runs) run\(runs == 1 ? "" : "s")) (exit 1)\n"),
            replay.stdout, file: file, line: line)
        let report = try jsonReport("replay.json")
        XCTAssertEqual(report["command"] as? String, "replay", file: file, line: line)
        XCTAssertEqual(report["result"] as? String, "reproduced", file: file, line: line)
        let section = try XCTUnwrap(report["replay"] as? [String: Any], file: file, line: line)
        XCTAssertEqual(section["reproducedRuns"] as? Int, runs, file: file, line: line)
        XCTAssertEqual(section["recordedSignature"] as? String, signature, file: file, line: line)
        let runResults = try XCTUnwrap(section["runResults"] as? [[String: Any]], file: file, line: line)
        XCTAssertEqual(runResults.map { $0["signature"] as? String }, Array(repeating: signature, count: runs), file: file, line: line)
    }

    // MARK: Crash, trap, hang

    func testASegfaultIsACrashVerdictWithASeedFileThatReplaysAndTheCampaignGoesOn() throws {
        let outcome = try run(fixtureCampaign("fixture-segv", seed: "11", rounds: 10))
        let signature = BuildSanitizer.segfaultSignature
        let cause = BuildSanitizer.crashCause(ofSignal: "SIGSEGV")
        let seedFiles = try assertCrashCampaign(outcome, rounds: 10, signature: signature, kind: "crash")
        XCTAssertTrue(outcome.stdout.contains(cause), outcome.stdout)
        if let sanitizer = BuildSanitizer.name {
            // The sanitizer caught the segfault, reported it and exited with its own status.
            XCTAssertTrue(outcome.stderr.contains("ended by \(sanitizer) (exited with status"), outcome.stderr)
            XCTAssertTrue(outcome.stderr.contains("ERROR: \(sanitizer): SEGV on unknown address"), outcome.stderr)
        } else {
            XCTAssertTrue(outcome.stderr.contains("killed by SIGSEGV"), outcome.stderr)
        }
        let report = try jsonReport()
        let violations = try XCTUnwrap(report["violations"] as? [String: Any])
        XCTAssertEqual((violations["crashSignals"] as? [String: Int])?[cause], seedFiles.count)
        // The process's standard error (Swift's crash backtrace, unless SWIFT_BACKTRACE turned it off) is kept
        // beside the seed file.
        for round in try failingRounds(report) {
            guard let log = round["log"] as? String else { continue }
            XCTAssertEqual(log, (round["seedFile"] as? String).map { String($0.dropLast(".json".count)) + ".log" })
            XCTAssertFalse(try String(contentsOfFile: log, encoding: .utf8).isEmpty, log)
        }
        try assertReplayReproduces(try XCTUnwrap(seedFiles.first), signature: signature)
    }

    func testAFatalErrorIsATrapVerdictWithASeedFileThatReplays() throws {
        let outcome = try run(fixtureCampaign("fixture-trap", seed: "11", rounds: 10))
        let seedFiles = try assertCrashCampaign(outcome, rounds: 10, signature: "trap", kind: "trap")
        XCTAssertTrue(outcome.stderr.contains("Fatal error: fixture-trap: deliberate trap while observing"), outcome.stderr)
        try assertReplayReproduces(try XCTUnwrap(seedFiles.first), signature: "trap")
    }

    func testAHangIsADeadlockReportedWithinSecondsAndTheCampaignGoesOn() throws {
        let outcome = try run(fixtureCampaign("fixture-hang", seed: "11", rounds: 5, extra: ["--stall-timeout", "1"]))
        let seedFiles = try assertCrashCampaign(outcome, rounds: 5, signature: "deadlock", kind: "deadlock")
        XCTAssertTrue(outcome.stderr.contains("no worker finished an operation for 1 s"), outcome.stderr)
        XCTAssertTrue(outcome.stdout.contains("DEADLOCKED; their processes were killed and the campaign went on"), outcome.stdout)
        for round in try failingRounds(jsonReport()) {
            let seconds = try XCTUnwrap(round["seconds"] as? Double)
            XCTAssertLessThan(seconds, 10, "a hang is reported within seconds, not after the 20 s watchdog")
        }
        try assertReplayReproduces(try XCTUnwrap(seedFiles.first), signature: "deadlock", runs: 1, extra: ["--stall-timeout", "1"])
    }

    func testTheControlledRunnerReportsCrashesAndHangsToo() throws {
        let segv = try run([
            "run", "--runner", "controlled", "--target", "fixture-segv", "--ops", "200", "--seed", "3", "--out",
            directory.file("controlled"), "--no-compare",
        ])
        XCTAssertEqual(segv.status, 1, segv.stdout + segv.stderr)
        XCTAssertTrue(segv.stdout.contains("rounds violated the oracle: \(BuildSanitizer.segfaultSignature))"), segv.stdout)
        let seedFile = try XCTUnwrap(
            try FileManager.default.contentsOfDirectory(atPath: directory.file("controlled")).first { $0.hasSuffix(".json") })
        let file = try SeedFileStore.read(directory.file("controlled/" + seedFile))
        XCTAssertEqual(file.runner, "controlled")
        XCTAssertNotNil(file.expectedSteps, "the PCT round's expected step count is recorded, so its schedule regenerates")
        try assertReplayReproduces(
            directory.file("controlled/" + seedFile), signature: BuildSanitizer.segfaultSignature, runs: 3)

        let start = Date()
        let hang = try run([
            "run", "--runner", "controlled", "--target", "fixture-hang", "--ops", "100", "--seed", "3", "--out",
            directory.file("controlled-hang"),
        ])
        XCTAssertEqual(hang.status, 1, hang.stdout + hang.stderr)
        XCTAssertTrue(hang.stderr.contains("blocked outside the scheduler's control"), hang.stderr)
        XCTAssertTrue(hang.stdout.contains("RESULT: FAIL (1 of 1 rounds violated the oracle: deadlock)"), hang.stdout)
        XCTAssertLessThan(
            Date().timeIntervalSince(start), BuildSanitizer.timeLimit(15),
            "the controlled runner notices a blocked worker in seconds")
    }

    /// In process, a crash still ends guard-stress, but the round's seed file, written before it ran, is left
    /// behind (`.running.json`, failure `unfinished`) and replays the crash.
    func testInProcessACrashLeavesTheUnfinishedRoundsSeedFileToReplay() throws {
        let outcome = try run(
            [
                "run", "--in-process", "--target", "fixture-segv", "--queues", "1", "--ops-per-queue", "4", "--ops", "40",
                "--seed", "11", "--out", directory.file("in-process"),
            ], allowsCrash: true)
        if let sanitizer = BuildSanitizer.name {
            // The sanitizer catches the segfault, reports it and ends guard-stress with its own exit status.
            XCTAssertEqual(outcome.reason, .exit, "in process the segfault ends guard-stress itself")
            XCTAssertNotEqual(outcome.status, 0)
            XCTAssertTrue(outcome.stderr.contains("ERROR: \(sanitizer): SEGV on unknown address"), outcome.stderr)
        } else {
            XCTAssertEqual(outcome.reason, .uncaughtSignal, "in process the segfault kills guard-stress itself")
        }
        let leftover = try XCTUnwrap(
            try FileManager.default.contentsOfDirectory(atPath: directory.file("in-process")).first { $0.hasSuffix(".running.json") })
        let path = directory.file("in-process/" + leftover)
        let file = try SeedFileStore.read(path)
        XCTAssertEqual(file.failure.signature, SeedFile.unfinishedSignature)
        XCTAssertNil(file.operations, "the seed regenerates the operations")
        let replay = try run(["replay", path, "--runs", "1"])
        XCTAssertEqual(replay.status, 1, replay.stdout + replay.stderr)
        XCTAssertTrue(replay.stdout.contains("(written before its round ran; the round never finished)"), replay.stdout)
        XCTAssertTrue(replay.stdout.contains("run 1: violated: \(BuildSanitizer.segfaultSignature)"), replay.stdout)
    }

    /// A controlled campaign is a function of its seed (with deterministic hashing, which child processes always
    /// have and `--in-process` sets up by restarting): in child processes it finds exactly what it finds in process,
    /// round for round, as its JUnit reports show.
    func testAnIsolatedControlledCampaignFindsWhatTheInProcessOneFinds() throws {
        var reports: [[String]] = []
        for mode in [["--in-process"], ["--rounds-per-process", "3"]] {
            let outcome = try run(
                [
                    "run", "--runner", "controlled", "--target", "raw", "--ops", "1500", "--seed", "21", "--out",
                    directory.file("same"), "--max-seed-files", "0", "--junit", directory.file("same.xml"),
                ] + mode)
            XCTAssertEqual(outcome.status, 1, outcome.stdout + outcome.stderr)
            let cases = try junitReport("same.xml").elements(forName: "testsuite").flatMap { $0.elements(forName: "testcase") }
            XCTAssertGreaterThan(cases.count, 3, "several processes take part")
            reports.append(cases.map { testCase in
                let name = testCase.attribute(forName: "name")?.stringValue ?? ""
                let failure = testCase.elements(forName: "failure").first?.attribute(forName: "message")?.stringValue ?? "pass"
                return "\(name): \(failure)"
            })
        }
        XCTAssertEqual(reports[0], reports[1])
    }

    // MARK: Reports of passing campaigns and usage errors

    func testPassingCampaignsReportInProcessAndIsolated() throws {
        for mode in [[], ["--in-process"]] {
            let outcome = try run(
                [
                    "run", "--queues", "4", "--ops-per-queue", "50", "--ops", "600", "--seed", "7", "--no-compare", "--out",
                    directory.file("pass"), "--json", directory.file("report.json"), "--junit", directory.file("report.xml"),
                ] + mode)
            XCTAssertEqual(outcome.status, 0, outcome.stdout + outcome.stderr)
            let report = try jsonReport()
            XCTAssertEqual(report["result"] as? String, "pass")
            XCTAssertEqual(report["exitCode"] as? Int, 0)
            XCTAssertEqual(report["target"] as? String, "guard")
            XCTAssertEqual((report["runner"] as? [String: Any])?["name"] as? String, "chaos")
            XCTAssertEqual((report["isolation"] as? [String: Any])?["mode"] as? String, mode.isEmpty ? "process" : "in-process")
            XCTAssertEqual((report["run"] as? [String: Any])?["seed"] as? String, "7")
            XCTAssertEqual(try failingRounds(report).count, 0)
            let totals = try XCTUnwrap(report["totals"] as? [String: Any])
            let rounds = try XCTUnwrap(totals["rounds"] as? Int)
            XCTAssertEqual(rounds, 3, "600 operations in rounds of 4 × 50")
            let suites = try junitReport()
            XCTAssertEqual(suites.attribute(forName: "tests")?.stringValue, String(rounds))
            XCTAssertEqual(suites.attribute(forName: "failures")?.stringValue, "0")
            let names = suites.elements(forName: "testsuite").flatMap { $0.elements(forName: "testcase") }
                .compactMap { $0.attribute(forName: "name")?.stringValue }
            XCTAssertEqual(names.count, rounds)
            XCTAssertTrue(names.first?.hasPrefix("round 0 (seed ") ?? false, "\(names)")
        }
        // A report's directory is created if needed.
        let nested = try run(["run", "--ops", "100", "--no-compare", "--out", directory.file("pass"), "--json", directory.file("reports/ci/run.json")])
        XCTAssertEqual(nested.status, 0, nested.stderr)
        XCTAssertEqual(try jsonReport("reports/ci/run.json")["result"] as? String, "pass")
    }

    func testBadIsolationAndReportOptionsExitTwo() throws {
        let safety = ["--ops", "50", "--duration", "1", "--out", directory.file("out")]
        GuardStressProcess.assertUsageError(
            try run(["run", "--in-process", "--stall-timeout", "2"] + safety), mentioning: "--stall-timeout does not apply with --in-process")
        GuardStressProcess.assertUsageError(try run(["run", "--stall-timeout", "0"] + safety), mentioning: "--stall-timeout")
        GuardStressProcess.assertUsageError(try run(["run", "--rounds-per-process", "0"] + safety), mentioning: "--rounds-per-process")
        let notADirectory = try directory.write("a file", to: "plain")
        GuardStressProcess.assertUsageError(
            try run(["run", "--json", notADirectory + "/report.json"] + safety), mentioning: "--json: cannot write")
        GuardStressProcess.assertUsageError(
            try run(["run", "--junit", directory.path] + safety), mentioning: "--junit needs a file")
        GuardStressProcess.assertUsageError(
            try run(["run", "--json", directory.file("r"), "--junit", directory.file("r")] + safety), mentioning: "different files")
        XCTAssertFalse(FileManager.default.fileExists(atPath: directory.file("out")), "no campaign should have run")
    }
}
