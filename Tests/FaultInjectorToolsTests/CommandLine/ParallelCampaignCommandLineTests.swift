import FaultInjectorTestSupport
import Foundation
import XCTest

/// `guard-stress run --jobs N` end to end: the same verdicts, reports and seed files as `--jobs 1` for a fixed
/// seed; a crashing round is a verdict while the other rounds go on; bad values are usage errors; SIGTERM leaves no
/// child process behind.
final class ParallelCampaignCommandLineTests: XCTestCase {
    private var directory: TemporaryDirectory!

    override func setUpWithError() throws {
        directory = try TemporaryDirectory("fi-parallel-cli")
    }

    override func tearDown() {
        directory?.remove()
        directory = nil
    }

    private func run(_ arguments: [String], timeout: Double = 120, file: StaticString = #filePath, line: UInt = #line) throws
        -> GuardStressProcess.Outcome
    {
        try GuardStressProcess.run(arguments, in: directory, timeout: timeout, file: file, line: line)
    }

    /// What a campaign's reports say round by round: the JUnit test cases in order (`round 3 (seed 1234)`, with
    /// `FAIL signature` after a failing one) and every seed file's content without its time stamp, by name.
    private struct Record: Equatable {
        var rounds: [String] = []
        var failures: [String] = []
        var totals: [String: Double] = [:]
        var seedFiles: [String: String] = [:]
    }

    private func record(_ name: String, seeds: String) throws -> Record {
        var record = Record()
        let junit = try String(contentsOfFile: directory.file("\(name).xml"), encoding: .utf8)
        let pattern = try NSRegularExpression(pattern: #"<testcase name="(round \d+ \(seed \d+\))""#)
        record.rounds = pattern.matches(in: junit, range: NSRange(junit.startIndex..., in: junit)).map {
            String(junit[Range($0.range(at: 1), in: junit)!])
        }
        let json = try XCTUnwrap(
            try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: directory.file("\(name).json"))))
                as? [String: Any])
        let run = try XCTUnwrap(json["run"] as? [String: Any])
        record.failures = try XCTUnwrap(run["failingRounds"] as? [[String: Any]]).map {
            "\($0["round"] ?? "") \($0["seed"] ?? "") \($0["signature"] ?? "") \(($0["seedFile"] as? String).map { ($0 as NSString).lastPathComponent } ?? "-")"
        }
        let totals = try XCTUnwrap(json["totals"] as? [String: Any])
        for key in ["rounds", "operations", "deliveries", "steps"] { record.totals[key] = totals[key] as? Double }
        let folder = directory.file(seeds)
        for name in (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? [] {
            var file = try XCTUnwrap(
                try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: folder + "/" + name)))
                    as? [String: Any])
            file["createdAt"] = nil
            record.seedFiles[name] = String(decoding: try JSONSerialization.data(withJSONObject: file, options: .sortedKeys), as: UTF8.self)
        }
        return record
    }

    /// Runs the same campaign with `--jobs 1` and `--jobs 2`; returns both records.
    private func bothWays(_ arguments: [String]) throws -> (one: Record, two: Record) {
        var records: [Record] = []
        for jobs in ["1", "2"] {
            let outcome = try run(
                ["run", "--jobs", jobs, "--out", directory.file("seeds-\(jobs)"), "--json", directory.file("jobs-\(jobs).json"),
                 "--junit", directory.file("jobs-\(jobs).xml"), "--max-seed-files", "1000"] + arguments)
            XCTAssertTrue([0, 1].contains(outcome.status), outcome.stderr)
            XCTAssertTrue(outcome.stderr.contains(", \(jobs) at once"), outcome.stderr)
            records.append(try record("jobs-\(jobs)", seeds: "seeds-\(jobs)"))
        }
        return (records[0], records[1])
    }

    func testTwoJobsGiveTheVerdictsAndSeedFilesOfOneAgainstAFailingTarget() throws {
        let (one, two) = try bothWays(["--runner", "controlled", "--target", "raw", "--ops", "3000", "--seed", "21"])
        XCTAssertEqual(one.rounds.count, 30)
        XCTAssertFalse(one.failures.isEmpty)
        XCTAssertEqual(one.seedFiles.count, one.failures.count)
        XCTAssertEqual(two, one)
    }

    func testTwoJobsRunTheRoundsOfOneAgainstAPassingTarget() throws {
        let (one, two) = try bothWays(
            ["--target", "guard", "--queues", "8", "--ops-per-queue", "50", "--ops", "2000", "--seed", "5", "--no-compare"])
        XCTAssertEqual(one.rounds.count, 5)
        XCTAssertEqual(one.failures, [])
        XCTAssertEqual(two.rounds, one.rounds, "the same rounds with the same seeds, listed in round order")
        XCTAssertEqual(two.failures, [])
        XCTAssertEqual(two.seedFiles, [:])
        let controlled = try bothWays(["--runner", "controlled", "--target", "guard", "--ops", "2000", "--seed", "5", "--no-compare"])
        XCTAssertEqual(controlled.one.failures, [])
        XCTAssertEqual(controlled.two, controlled.one, "controlled rounds: the same totals too")
    }

    /// Rounds of one queue with four operations fail exactly when they observe: with two jobs the crashing rounds
    /// are verdicts (seed file and log each), every round is recorded, in round order.
    func testACrashingRoundInAParallelCampaignIsAVerdictWhileTheOthersGoOn() throws {
        // The round servers inherit it: a crash ends its process at once instead of after a backtrace.
        setenv("SWIFT_BACKTRACE", "enable=no", 1)
        defer { unsetenv("SWIFT_BACKTRACE") }
        let (one, two) = try bothWays(
            ["--target", "fixture-segv", "--queues", "1", "--ops-per-queue", "4", "--ops", "40", "--seed", "11"])
        XCTAssertEqual(two.rounds.count, 10)
        XCTAssertEqual(two.rounds, one.rounds)
        XCTAssertFalse(two.failures.isEmpty)
        XCTAssertLessThan(two.failures.count, 10)
        XCTAssertTrue(two.failures.allSatisfy { $0.contains(" crash(SIGSEGV) seed-fixture-segv-") }, "\(two.failures)")
        XCTAssertEqual(two.failures, one.failures)
        XCTAssertEqual(Set(two.seedFiles.keys), Set(one.seedFiles.keys))
        XCTAssertFalse(two.seedFiles.keys.contains { $0.hasSuffix(".running.json") })
    }

    func testBadJobValuesAreUsageErrors() throws {
        for value in ["0", "-1", "two", "1.5", "1025", "99999999999999999999999"] {
            GuardStressProcess.assertUsageError(
                try run(["run", "--jobs", value, "--ops", "10"]), mentioning: "--jobs needs a whole number from 1 to 1024, not '\(value)'")
        }
        GuardStressProcess.assertUsageError(
            try run(["run", "--jobs", "2", "--in-process", "--ops", "10"]), mentioning: "--jobs 2 needs child processes")
        let inProcess = try run(["run", "--jobs", "1", "--in-process", "--ops", "10", "--no-compare", "--out", directory.file("one")])
        XCTAssertEqual(inProcess.status, 0, inProcess.stderr)
    }

    /// SIGTERM (a CI job's time limit) ends the campaign and every child process it started: none is left running.
    func testSIGTERMLeavesNoChildProcess() throws {
        let executable = try GuardStressProcess.executable()
        let process = Process()
        process.executableURL = executable
        process.arguments = ["run", "--duration", "60", "--jobs", "2", "--no-compare", "--out", directory.file("seeds")]
        process.currentDirectoryURL = URL(fileURLWithPath: directory.path)
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        let parent = process.processIdentifier
        var children: Set<Int32> = []
        let deadline = Date(timeIntervalSinceNow: 60)
        while children.count < 2, process.isRunning, Date() < deadline {
            children.formUnion(ProcessTable.children(of: parent))
            usleep(50_000)
        }
        XCTAssertGreaterThanOrEqual(children.count, 2, "two jobs run two round servers")
        kill(parent, SIGTERM)
        process.waitUntilExit()
        XCTAssertEqual(process.terminationReason, .uncaughtSignal)
        XCTAssertEqual(process.terminationStatus, SIGTERM)
        var living = ProcessTable.running(executable: executable.resolvingSymlinksInPath().path)
        let settled = Date(timeIntervalSinceNow: 2)
        while !living.isEmpty, Date() < settled {
            usleep(50_000)
            living = ProcessTable.running(executable: executable.resolvingSymlinksInPath().path)
        }
        XCTAssertEqual(living, [], "round servers left running after SIGTERM")
        XCTAssertEqual(children.filter(ProcessTable.isRunning), [])
    }
}

/// What `ps` would show, read from `/proc`.
private enum ProcessTable {
    /// Process ids whose parent is `parent`.
    static func children(of parent: Int32) -> Set<Int32> {
        Set(pids().filter { stat($0)?.parent == parent })
    }

    /// Process ids running `executable` (zombies, which are gone but not yet reaped, excluded).
    static func running(executable: String) -> [Int32] {
        pids().filter { pid in
            (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(pid)/exe")) == executable && isRunning(pid)
        }
    }

    /// Whether `pid` exists and is not a zombie.
    static func isRunning(_ pid: Int32) -> Bool {
        guard let state = stat(pid)?.state else { return false }
        return state != "Z" && state != "X"
    }

    private static func pids() -> [Int32] {
        ((try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []).compactMap { Int32($0) }
    }

    /// The state and parent from `/proc/PID/stat` (after the command name in parentheses).
    private static func stat(_ pid: Int32) -> (state: Character, parent: Int32)? {
        guard let text = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
            let close = text.lastIndex(of: ")")
        else { return nil }
        let fields = text[text.index(after: close)...].split(separator: " ")
        guard fields.count > 2, let state = fields[0].first, let parent = Int32(fields[1]) else { return nil }
        return (state, parent)
    }
}
