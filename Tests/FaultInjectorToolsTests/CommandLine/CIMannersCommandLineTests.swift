@testable import FaultInjector
import FaultInjectorTestSupport
import Foundation
import XCTest

/// How `guard-stress` behaves in CI, run as a subprocess (see ``GuardStressProcess``): every accepted setting works
/// or is refused, a log gets progress lines, a signal never leaves an earlier run's report behind, the result line
/// and the exit code agree, `--json -` is standard output, and bad seed files say what is wrong with them.
final class CIMannersCommandLineTests: XCTestCase {
    private var directory: TemporaryDirectory!

    override func setUpWithError() throws {
        directory = try TemporaryDirectory("fi-ci-manners")
    }

    override func tearDown() {
        directory?.remove()
        directory = nil
    }

    private func run(
        _ arguments: [String], timeout: Double = 60, launcher: [String] = [], file: StaticString = #filePath,
        line: UInt = #line
    ) throws -> GuardStressProcess.Outcome {
        try GuardStressProcess.run(arguments, in: directory, timeout: timeout, launcher: launcher, file: file, line: line)
    }

    private func jsonObject(_ path: String) throws -> [String: Any] {
        try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: path))) as? [String: Any])
    }

    // MARK: Settings the harness cannot serve

    /// More queues than Dispatch runs at once (its thread pool has about 255 threads on Linux) is no deadlock of the
    /// guard: the queues that get no thread start as others finish.
    func testQueueCountsAboveDispatchsThreadPoolPassOnTheGuard() throws {
        for queues in ["256", "1024", "4096"] {
            let outcome = try run(
                ["run", "--queues", queues, "--ops-per-queue", "2", "--duration", "1", "--seed", "3", "--no-compare",
                 "--out", directory.file("seeds-\(queues)")], timeout: 240)
            XCTAssertEqual(outcome.status, 0, "--queues \(queues): " + outcome.stdout + outcome.stderr)
            XCTAssertTrue(outcome.stdout.contains("RESULT: PASS"), outcome.stdout)
            XCTAssertFalse(outcome.stdout.contains("start gate"), outcome.stdout)
        }
    }

    /// A round longer than the parent's safety-net deadline (2 ms per observe, 17,000 observes: 34 s against 33.5 s)
    /// that keeps making progress, as any long round on a busy machine, keeps its verdict: it is not killed and
    /// called a deadlock.
    func testALongRoundThatKeepsMovingKeepsItsVerdict() throws {
        let outcome = try run(
            ["run", "--target", "fixture-slow", "--queues", "1", "--ops-per-queue", "17000", "--mix", "observe=1",
             "--no-faults", "--stall-timeout", "0.1", "--duration", "1", "--seed", "2", "--out", directory.file("slow")],
            timeout: 240)
        XCTAssertEqual(outcome.status, 0, outcome.stdout + outcome.stderr)
        XCTAssertTrue(outcome.stdout.contains("RESULT: PASS"), outcome.stdout)
    }

    // MARK: Logs

    /// Standard error is a file here, not a terminal: a whole progress line comes every `--progress` seconds.
    func testALogGetsAProgressLineEverySoOften() throws {
        let outcome = try run(
            ["run", "--queues", "4", "--ops-per-queue", "100", "--duration", "3.5", "--progress", "1", "--no-compare",
             "--out", directory.file("s")])
        XCTAssertEqual(outcome.status, 0, outcome.stderr)
        let lines = outcome.stderrLines.filter { $0.hasPrefix("guard-stress: [guard] round ") && $0.contains(" of 3.5 s") }
        XCTAssertGreaterThanOrEqual(lines.count, 2, outcome.stderr)
        XCTAssertFalse(outcome.stderr.contains("\r"), "a log gets whole lines, not a line rewritten in place")
    }

    // MARK: Signals

    /// SIGTERM (a CI job's time limit) in the middle of a campaign: the earlier run's passing reports are not left
    /// behind. They say `incomplete` while the campaign runs and `interrupted` once the signal stopped it, and the
    /// process ends by the signal.
    func testSIGTERMNeverLeavesAnEarlierRunsPassingReport() throws {
        let json = directory.file("report.json")
        let junit = directory.file("report.xml")
        let first = try run(["run", "--queues", "4", "--ops", "400", "--no-compare", "--json", json, "--junit", junit])
        XCTAssertEqual(first.status, 0, first.stderr)
        XCTAssertEqual(try jsonObject(json)["result"] as? String, "pass")

        let process = Process()
        process.executableURL = try GuardStressProcess.executable()
        process.arguments = ["run", "--queues", "4", "--duration", "60", "--no-compare", "--json", json, "--junit", junit,
                             "--out", directory.file("seeds")]
        process.currentDirectoryURL = URL(fileURLWithPath: directory.path)
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        let deadline = Date(timeIntervalSinceNow: 30)
        while (try? jsonObject(json)["result"] as? String) != "incomplete", Date() < deadline { usleep(20_000) }
        XCTAssertEqual(try jsonObject(json)["result"] as? String, "incomplete", "the earlier report is replaced at the start")
        sleep(2)
        process.terminate()
        process.waitUntilExit()
        XCTAssertEqual(process.terminationReason, .uncaughtSignal)
        XCTAssertEqual(process.terminationStatus, SIGTERM)
        let report = try jsonObject(json)
        XCTAssertEqual(report["result"] as? String, "interrupted")
        XCTAssertEqual(report["exitCode"] as? Int, 128 + Int(SIGTERM))
        XCTAssertTrue((report["interruption"] as? String)?.contains("stopped by SIGTERM") ?? false, "\(report)")
        let xml = try String(contentsOfFile: junit, encoding: .utf8)
        XCTAssertTrue(xml.contains("type=\"interrupted\""), xml)
        XCTAssertTrue(xml.contains("<testsuites name=\"guard-stress\""), xml)
    }

    // MARK: Verdicts and exit codes

    /// A replay that fails, but never with the recorded signature, did not reproduce the recorded failure: it says
    /// so, exits 1 for the violation, and its JSON report says `other-failure`.
    func testReplayIsReproducedOnlyWhenTheRecordedFailureCameBack() throws {
        let data = try RunFixtures.editedRawSeedFile { file in
            var failure = file["failure"] as? [String: Any] ?? [:]
            failure["signature"] = "missing-delivery"
            file["failure"] = failure
        }
        let seedFile = try directory.write(data, to: "other.json")
        let outcome = try run(["replay", seedFile, "--runs", "2", "--json", directory.file("replay.json")])
        XCTAssertEqual(outcome.status, 1, outcome.stdout + outcome.stderr)
        XCTAssertTrue(outcome.stdout.contains("with the recorded signature in 0/2"), outcome.stdout)
        XCTAssertFalse(outcome.stdout.contains("REPRODUCED ("), outcome.stdout)
        XCTAssertTrue(outcome.stdout.contains("RESULT: FAILED DIFFERENTLY ("), outcome.stdout)
        XCTAssertTrue(outcome.stdout.hasSuffix("(exit 1)\n"), outcome.stdout)
        XCTAssertEqual(try jsonObject(directory.file("replay.json"))["result"] as? String, "other-failure")
    }

    #if os(Linux)
    /// A report that cannot be written makes the exit code 2, and the result line, printed after the reports, says
    /// exit 2 too.
    func testTheResultLineNamesTheExitCodeTheProcessEndsWith() throws {
        let seedFile = try directory.write(try RunFixtures.rawSeedFileData(), to: "raw.json")
        let replay = try run(["replay", seedFile, "--runs", "1", "--json", "/dev/full"])
        XCTAssertEqual(replay.status, 2, replay.stdout + replay.stderr)
        let result = try XCTUnwrap(replay.stdout.split(separator: "\n").last { $0.hasPrefix("RESULT: ") })
        XCTAssertTrue(result.hasSuffix("(exit 2)"), String(result))
        XCTAssertFalse(replay.stdout.contains("(exit 1)"), replay.stdout)
        let campaign = try run(["run", "--queues", "2", "--ops", "100", "--no-compare", "--json", "/dev/full"])
        XCTAssertEqual(campaign.status, 2, campaign.stdout + campaign.stderr)
        XCTAssertTrue(campaign.stdout.hasSuffix("(exit 2)\n"), campaign.stdout)
    }
    #endif

    /// `--json -` is standard output: it holds the report alone (the summary goes to standard error).
    func testJSONDashWritesTheReportToStandardOutput() throws {
        let outcome = try run(["run", "--queues", "2", "--ops", "200", "--no-compare", "--json", "-", "--out", directory.file("s")])
        XCTAssertEqual(outcome.status, 0, outcome.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: directory.file("-")), "no file named -")
        let report = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(outcome.stdout.utf8)) as? [String: Any])
        XCTAssertEqual(report["format"] as? String, "kvoguard-stress-report")
        XCTAssertEqual(report["result"] as? String, "pass")
        XCTAssertTrue(outcome.stderr.contains("RESULT: PASS"), outcome.stderr)
    }

    // MARK: Bad seed files

    private func assertReplayRejects(
        _ path: String, mentioning phrase: String, launcher: [String] = [], file: StaticString = #filePath,
        line: UInt = #line
    ) throws {
        let outcome = try run(["replay", path, "--runs", "1"], launcher: launcher, file: file, line: line)
        XCTAssertEqual(outcome.status, 2, outcome.stdout + outcome.stderr, file: file, line: line)
        XCTAssertTrue(outcome.stderr.contains(phrase), "\"\(outcome.stderr)\" lacks \"\(phrase)\"", file: file, line: line)
        XCTAssertFalse(outcome.stdout.contains("Replaying"), "the replay should not have started", file: file, line: line)
    }

    func testASeedFileThatIsADirectoryOrUnreadableSaysWhy() throws {
        let folder = directory.file("folder.json")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: false)
        try assertReplayRejects(folder, mentioning: "is a directory")
        let locked = try directory.write(try RunFixtures.rawSeedFileData(), to: "locked.json")
        XCTAssertEqual(chmod(locked, 0), 0)
        defer { chmod(locked, 0o644) }
        // Root reads any file: run as nobody then (the test's directory and guard-stress are readable to all).
        let launcher = getuid() == 0 ? ["/usr/bin/setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"] : []
        XCTAssertTrue(launcher.isEmpty || FileManager.default.isExecutableFile(atPath: launcher[0]), "no setpriv to drop root")
        XCTAssertEqual(chmod(directory.path, 0o755), 0)
        try assertReplayRejects(locked, mentioning: "permission denied", launcher: launcher)
    }

    func testASeedFileWithoutItsOperationsIsAnError() throws {
        let data = try RunFixtures.editedRawSeedFile { $0["operations"] = nil }
        try assertReplayRejects(try directory.write(data, to: "no-operations.json"), mentioning: "\"operations\" is missing")
    }

    func testAnEmptyObjectIsNotASeedFileOfFormatNothing() throws {
        let path = try directory.write("{}\n", to: "empty-object.json")
        try assertReplayRejects(path, mentioning: "is an empty JSON object; a seed file has \"format\"")
        let outcome = try run(["replay", path])
        XCTAssertFalse(outcome.stderr.contains("nothing"), outcome.stderr)
    }

    // MARK: Shrinking

    /// `--quiet` prints the result and where it went: no progress lines, no policy, no operation list.
    func testShrinkQuietIsQuiet() throws {
        let seed = try directory.write(try RunFixtures.controlledSeedFileData(), to: "controlled.json")
        let outcome = try run(["shrink", seed, "--quiet", "--verify", "2"], timeout: 120)
        XCTAssertEqual(outcome.status, 0, outcome.stdout + outcome.stderr)
        XCTAssertEqual(outcome.stderr, "", "no progress lines")
        XCTAssertFalse(outcome.stdout.contains("operations:"), outcome.stdout)
        XCTAssertFalse(outcome.stdout.contains("each candidate"), outcome.stdout)
        XCTAssertLessThan(outcome.stdout.split(separator: "\n").count, 12, outcome.stdout)
        XCTAssertTrue(outcome.stdout.contains("RESULT: SHRUNK"), outcome.stdout)
        XCTAssertTrue(outcome.stdout.split(separator: "\n").allSatisfy { $0.count < 400 }, outcome.stdout)
    }

    /// A failure that does not come back (`fixture-fails-once` fails the first observe of its process only): the
    /// shrunk file does not verify, so it is written under a name that says so, its `shrunk.verified` is false, no
    /// `.shrunk.json` appears, and shrink exits 1.
    func testAShrunkFileThatDidNotVerifyIsNotWrittenAsShrunk() throws {
        let out = directory.file("once")
        let campaign = try run(
            ["run", "--target", "fixture-fails-once", "--runner", "controlled", "--queues", "2", "--ops-per-queue", "4",
             "--in-process", "--stop-at-first-failure", "--seed", "4", "--out", out])
        XCTAssertEqual(campaign.status, 1, campaign.stdout + campaign.stderr)
        let seed = try XCTUnwrap(try FileManager.default.contentsOfDirectory(atPath: out).first { $0.hasSuffix(".json") })
        let path = (out as NSString).appendingPathComponent(seed)
        let shrink = try run(["shrink", path, "--in-process", "--verify", "3", "--quiet"], timeout: 120)
        XCTAssertEqual(shrink.status, 1, shrink.stdout + shrink.stderr)
        XCTAssertTrue(shrink.stdout.contains("RESULT: NOT CONFIRMED"), shrink.stdout)
        let names = try FileManager.default.contentsOfDirectory(atPath: out)
        XCTAssertFalse(names.contains { $0.contains(".shrunk.json") || $0.contains(".shrunk-") }, "\(names)")
        let unverified = try XCTUnwrap(names.first { $0.hasSuffix(".unverified-shrunk.json") }, "\(names)")
        let file = try jsonObject((out as NSString).appendingPathComponent(unverified))
        XCTAssertEqual((file["shrunk"] as? [String: Any])?["verified"] as? Bool, false)
    }
}
