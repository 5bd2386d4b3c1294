@testable import FaultInjector
import Foundation
import GuardCore
import XCTest

/// The `guard-stress` executable, run as a subprocess. `swift build` and `swift test` build it next to the test
/// bundle (`.build/<config>/guard-stress` beside `.build/<config>/KVOGuardPackageTests.xctest`).
final class CommandLineTests: XCTestCase {
    private var directory: TemporaryDirectory!

    override func setUpWithError() throws {
        directory = try TemporaryDirectory("fi-cli")
    }

    override func tearDown() {
        directory?.remove()
        directory = nil
    }

    // MARK: Running the executable

    private struct Outcome {
        let status: Int32
        let reason: Process.TerminationReason
        let stdout: String
        let stderr: String

        var stderrLines: [String] { stderr.split(separator: "\n", omittingEmptySubsequences: true).map(String.init) }
        var exitedNormally: Bool { reason == .exit }
    }

    /// The guard-stress binary beside the test bundle; fails the test (with how to build it) if it is missing.
    private func executable(file: StaticString = #filePath, line: UInt = #line) throws -> URL {
        #if os(macOS)
        // On macOS the test bundle is loaded by Xcode's `xctest` runner, so argument 0 is the runner, not the bundle.
        let bundle = Bundle(for: Self.self).bundleURL
        let bundlePath = bundle.path
        #else
        let bundlePath = CommandLine.arguments[0]
        let bundle = URL(fileURLWithPath: bundlePath, relativeTo: URL(fileURLWithPath: FileManager.default.currentDirectoryPath))
            .standardizedFileURL
        #endif
        let candidate = bundle.deletingLastPathComponent().appendingPathComponent("guard-stress")
        guard FileManager.default.isExecutableFile(atPath: candidate.path) else {
            XCTFail(
                "guard-stress is not built at \(candidate.path) (test bundle: \(bundlePath)). Build it with "
                    + "'swift build --build-tests' (or 'swift build --product guard-stress') using the same --scratch-path "
                    + "as 'swift test'.", file: file, line: line)
            throw CocoaError(.fileNoSuchFile)
        }
        return candidate
    }

    /// Runs guard-stress with `arguments` in the test's temporary directory; kills it after `timeout` seconds.
    private func run(_ arguments: [String], timeout: Double = 30, file: StaticString = #filePath, line: UInt = #line) throws -> Outcome {
        let process = Process()
        process.executableURL = try executable(file: file, line: line)
        process.arguments = arguments
        process.currentDirectoryURL = URL(fileURLWithPath: directory.path)
        let stdoutPath = directory.file("stdout-\(UUID().uuidString).txt")
        let stderrPath = directory.file("stderr-\(UUID().uuidString).txt")
        XCTAssertTrue(FileManager.default.createFile(atPath: stdoutPath, contents: nil), file: file, line: line)
        XCTAssertTrue(FileManager.default.createFile(atPath: stderrPath, contents: nil), file: file, line: line)
        let stdout = try XCTUnwrap(FileHandle(forWritingAtPath: stdoutPath))
        let stderr = try XCTUnwrap(FileHandle(forWritingAtPath: stderrPath))
        defer {
            try? stdout.close()
            try? stderr.close()
            try? FileManager.default.removeItem(atPath: stdoutPath)
            try? FileManager.default.removeItem(atPath: stderrPath)
        }
        process.standardOutput = stdout
        process.standardError = stderr
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let deadline = Date(timeIntervalSinceNow: timeout)
        while process.isRunning, Date() < deadline { usleep(20_000) }
        if process.isRunning {
            process.terminate()
            process.waitUntilExit()
            XCTFail("guard-stress \(arguments.joined(separator: " ")) did not finish within \(timeout) s", file: file, line: line)
        }
        process.waitUntilExit()
        let out = String(decoding: try Data(contentsOf: URL(fileURLWithPath: stdoutPath)), as: UTF8.self)
        let err = String(decoding: try Data(contentsOf: URL(fileURLWithPath: stderrPath)), as: UTF8.self)
        XCTAssertEqual(process.terminationReason, .exit, "guard-stress crashed: \(err)", file: file, line: line)
        return Outcome(status: process.terminationStatus, reason: process.terminationReason, stdout: out, stderr: err)
    }

    private static let hint = "Run 'guard-stress --help' for usage."

    /// Asserts a usage error: exit 2, one error line naming `phrase`, at most the help hint after it, nothing on
    /// stdout.
    private func assertUsageError(
        _ outcome: Outcome, mentioning phrase: String, file: StaticString = #filePath, line: UInt = #line
    ) {
        XCTAssertEqual(outcome.status, 2, outcome.stderr, file: file, line: line)
        XCTAssertTrue(outcome.exitedNormally, file: file, line: line)
        let lines = outcome.stderrLines
        XCTAssertTrue((1...2).contains(lines.count), "stderr: \(outcome.stderr)", file: file, line: line)
        XCTAssertTrue(lines.first?.hasPrefix("guard-stress: ") ?? false, "stderr: \(outcome.stderr)", file: file, line: line)
        XCTAssertTrue(lines.first?.contains(phrase) ?? false, "\"\(lines.first ?? "")\" does not mention \"\(phrase)\"", file: file, line: line)
        if lines.count == 2 { XCTAssertEqual(lines[1], Self.hint, file: file, line: line) }
        XCTAssertEqual(outcome.stdout, "", file: file, line: line)
    }

    /// Short budgets appended to usage-error runs, so a parser that wrongly accepted them would still end fast.
    private var safety: [String] { ["--ops", "50", "--duration", "1", "--out", directory.file("out")] }

    private func seedFiles(in path: String) throws -> [String] {
        guard FileManager.default.fileExists(atPath: path) else { return [] }
        return try FileManager.default.contentsOfDirectory(atPath: path).filter { $0.hasSuffix(".json") }.sorted()
            .map { (path as NSString).appendingPathComponent($0) }
    }

    // MARK: Help and usage errors

    func testHelpExitsZeroAndPrintsUsage() throws {
        for arguments in [["--help"], ["-h"], ["help"]] {
            let outcome = try run(arguments)
            XCTAssertEqual(outcome.status, 0, "\(arguments)")
            XCTAssertTrue(outcome.stdout.contains("USAGE"), outcome.stdout)
            XCTAssertTrue(outcome.stdout.contains("guard-stress replay FILE"), outcome.stdout)
            XCTAssertTrue(outcome.stdout.contains("EXIT CODES"), outcome.stdout)
            XCTAssertEqual(outcome.stderr, "")
        }
        let runHelp = try run(["help", "run"])
        XCTAssertEqual(runHelp.status, 0)
        XCTAssertTrue(runHelp.stdout.contains("--queues N"), runHelp.stdout)
        let replayHelp = try run(["replay", "--help"])
        XCTAssertEqual(replayHelp.status, 0)
        XCTAssertTrue(replayHelp.stdout.contains("--runs K"), replayHelp.stdout)
    }

    func testUnknownOptionExitsTwoNamingIt() throws {
        let outcome = try run(["--bogus"] + safety)
        assertUsageError(outcome, mentioning: "unknown option '--bogus'")
        assertUsageError(try run(["run", "--frobnicate=3"] + safety), mentioning: "'--frobnicate=3'")
        assertUsageError(try run(["run", "--no-faults=yes"] + safety), mentioning: "'--no-faults=yes'")
        assertUsageError(try run(["replay", "--bogus", directory.file("x.json")]), mentioning: "unknown option '--bogus'")
    }

    func testBadOptionValuesExitTwo() throws {
        assertUsageError(try run(["run", "--queues", "0"] + safety), mentioning: "--queues")
        assertUsageError(try run(["run", "--queues", "many"] + safety), mentioning: "--queues")
        assertUsageError(try run(["run", "--seed", "xyz"] + safety), mentioning: "--seed")
        assertUsageError(try run(["run", "--target", "planted"] + safety), mentioning: "--target")
        assertUsageError(try run(["run", "--ops", "50", "--out", directory.file("out"), "--duration", "0"]), mentioning: "--duration")
        assertUsageError(try run(["run", "--queues"]), mentioning: "--queues needs a value")
        assertUsageError(try run(["run", "extra"] + safety), mentioning: "positional")
        assertUsageError(try run(["frobnicate"]), mentioning: "unknown subcommand 'frobnicate'")
        XCTAssertEqual(try seedFiles(in: directory.file("out")), [], "no campaign should have run")
    }

    func testReplayWithoutAFileExitsTwo() throws {
        assertUsageError(try run(["replay"]), mentioning: "replay needs a seed file")
        assertUsageError(try run(["replay", "a.json", "b.json"]), mentioning: "replay takes one seed file, not 2")
        assertUsageError(try run(["replay", directory.file("x.json"), "--runs", "0"]), mentioning: "--runs")
    }

    // MARK: Bad seed files

    /// Replays `path` and asserts exit 2 with exactly one stderr line that mentions `phrase`.
    private func assertReplayRejects(_ path: String, mentioning phrase: String, file: StaticString = #filePath, line: UInt = #line) throws {
        let outcome = try run(["replay", path, "--runs", "1"], file: file, line: line)
        XCTAssertEqual(outcome.status, 2, "\(path): \(outcome.stderr)", file: file, line: line)
        XCTAssertEqual(outcome.stderrLines.count, 1, "stderr: \(outcome.stderr)", file: file, line: line)
        XCTAssertTrue(
            outcome.stderr.contains(phrase), "\"\(outcome.stderr)\" does not mention \"\(phrase)\"", file: file, line: line)
        XCTAssertFalse(outcome.stdout.contains("Replaying"), "the replay should not have started", file: file, line: line)
    }

    private func edited(_ name: String, _ edit: (inout [String: Any]) -> Void) throws -> String {
        try directory.write(RunFixtures.editedRawSeedFile(edit), to: name)
    }

    private func editedOperations(_ name: String, _ edit: (inout [[String]]) -> Void) throws -> String {
        try edited(name) { RunFixtures.editOperations(in: &$0, edit) }
    }

    private func editedScenario(_ name: String, _ field: String, _ value: Any?) throws -> String {
        try edited(name) { RunFixtures.setScenarioField(field, to: value, in: &$0) }
    }

    func testReplayOfAMissingFile() throws {
        try assertReplayRejects(directory.file("absent.json"), mentioning: "no such file")
    }

    func testReplayOfAnEmptyFile() throws {
        try assertReplayRejects(directory.write("", to: "empty.json"), mentioning: "is empty")
    }

    func testReplayOfATruncatedFile() throws {
        let data = try RunFixtures.rawSeedFileData()
        try assertReplayRejects(directory.write(data.prefix(data.count / 2), to: "half.json"), mentioning: "is truncated")
    }

    func testReplayOfSomethingThatIsNotJSON() throws {
        try assertReplayRejects(directory.write("not a seed file at all\n", to: "prose.json"), mentioning: "is not JSON")
        try assertReplayRejects(directory.write("[1, 2]\n", to: "array.json"), mentioning: "top level must be a JSON object")
    }

    func testReplayOfAFileOfAnotherFormatOrVersion() throws {
        try assertReplayRejects(edited("format.json") { $0["format"] = "other" }, mentioning: "is not a KVOGuard seed file")
        try assertReplayRejects(
            edited("version.json") {
                $0["version"] = 2
                $0["scenario"] = nil
            }, mentioning: "is seed file version 2; this guard-stress reads version 1")
    }

    func testReplayOfAFileWithMissingOrMistypedFields() throws {
        try assertReplayRejects(editedScenario("missing.json", "workers", nil), mentioning: "\"scenario.workers\" is missing")
        try assertReplayRejects(editedScenario("type.json", "workers", "many"), mentioning: "\"scenario.workers\" has the wrong type")
    }

    func testReplayOfAFileNamingAnUnknownTargetOrRunner() throws {
        try assertReplayRejects(edited("target.json") { $0["target"] = "planted" }, mentioning: "names target \"planted\"")
        try assertReplayRejects(edited("runner.json") { $0["runner"] = "controlled" }, mentioning: "names runner \"controlled\"")
    }

    func testReplayOfAFileThatMakesNoSense() throws {
        try assertReplayRejects(edited("seed.json") { $0["seed"] = "twelve" }, mentioning: "the seed \"twelve\" is not a whole number")
        try assertReplayRejects(
            editedOperations("operation.json") { $0[0][0] = "mutate o1 sum" }, mentioning: "\"mutate o1 sum\" is not an operation")
        try assertReplayRejects(
            editedOperations("slot.json") { $0[0][0] = "release-object o6" }, mentioning: "names a slot beyond")
        try assertReplayRejects(editedOperations("workers.json") { $0.removeLast() }, mentioning: "lists 11 workers but its configuration has 12")
        try assertReplayRejects(editedScenario("zero.json", "workers", 0), mentioning: "workers must be between 1 and 4096 (is 0)")
    }

    // MARK: Campaigns and replays

    func testRawCampaignFailsWritesSeedFilesAndReplayReproduces() throws {
        let out = directory.file("raw-seeds")
        let campaign = try run(["run", "--target", "raw", "--queues", "16", "--ops", "3000", "--duration", "5", "--out", out, "--seed", "5"])
        XCTAssertEqual(campaign.status, 1, campaign.stdout + campaign.stderr)
        XCTAssertTrue(campaign.stdout.contains("runtime misuse (each one a crash under Foundation):"), campaign.stdout)
        XCTAssertTrue(campaign.stdout.contains("notRegistered"), campaign.stdout)
        XCTAssertTrue(campaign.stdout.contains("RESULT: FAIL"), campaign.stdout)
        XCTAssertFalse(campaign.stdout.contains("What the raw runtime"), "no comparison for the raw target itself")
        let files = try seedFiles(in: out)
        XCTAssertGreaterThanOrEqual(files.count, 1, "no seed file in \(out)")
        for path in files {
            XCTAssertTrue(campaign.stdout.contains(path), "the summary does not list \(path)")
            let file = try SeedFileStore.read(path)
            XCTAssertEqual(file.target, "raw")
            XCTAssertTrue(file.failure.signature.contains("notRegistered"), file.failure.signature)
        }
        let seedFile = try XCTUnwrap(files.first)

        let replay = try run(["replay", seedFile, "--runs", "2"])
        XCTAssertEqual(replay.status, 1, replay.stdout + replay.stderr)
        XCTAssertTrue(replay.stdout.contains("RESULT: REPRODUCED"), replay.stdout)
        let runLines = replay.stdout.split(separator: "\n").filter { $0.hasPrefix("  run ") }
        XCTAssertEqual(runLines.count, 2, replay.stdout)
        XCTAssertTrue(runLines.contains { $0.contains("violated: ") && $0.contains("runtime-misuse(") }, replay.stdout)
        XCTAssertTrue(replay.stdout.contains("reproduced in "), replay.stdout)
        XCTAssertEqual(replay.stderr, "")

        // The same operations against the guard: the oracle holds.
        let guarded = try run(["replay", seedFile, "--runs", "1", "--target", "guard"])
        XCTAssertEqual(guarded.status, 0, guarded.stdout + guarded.stderr)
        XCTAssertTrue(guarded.stdout.contains("RESULT: NOT REPRODUCED"), guarded.stdout)
    }

    func testGuardCampaignPasses() throws {
        let out = directory.file("guard-seeds")
        let campaign = try run(["run", "--queues", "16", "--ops", "3000", "--duration", "5", "--seed", "5", "--no-compare", "--out", out])
        XCTAssertEqual(campaign.status, 0, campaign.stdout + campaign.stderr)
        XCTAssertTrue(campaign.stdout.contains("RESULT: PASS"), campaign.stdout)
        XCTAssertTrue(campaign.stdout.contains("target guard, seed 5"), campaign.stdout)
        XCTAssertFalse(campaign.stdout.contains("What the raw runtime"), "--no-compare")
        XCTAssertEqual(try seedFiles(in: out), [])
    }

    func testGuardCampaignComparesWithTheRawRuntime() throws {
        let campaign = try run(["run", "--queues", "8", "--ops", "800", "--duration", "5", "--seed", "3", "--out", directory.file("cmp")])
        XCTAssertEqual(campaign.status, 0, campaign.stdout + campaign.stderr)
        XCTAssertTrue(campaign.stdout.contains("RESULT: PASS"), campaign.stdout)
        XCTAssertTrue(campaign.stdout.contains("What the raw runtime (no guard) would have done"), campaign.stdout)
        XCTAssertTrue(campaign.stdout.contains("notRegistered"), campaign.stdout)
    }

    // MARK: Apple-only targets

    func testTheNSObjectTargetRunsOnlyWhereTheObjectiveCRuntimeIs() throws {
        #if canImport(ObjectiveC)
        let campaign = try run(
            ["run", "--target", "nsobject", "--queues", "8", "--ops", "2000", "--duration", "5", "--seed", "4",
             "--out", directory.file("nsobject")], timeout: 120)
        XCTAssertEqual(campaign.status, 0, campaign.stdout + campaign.stderr)
        XCTAssertTrue(campaign.stdout.contains("target nsobject"), campaign.stdout)
        #else
        assertUsageError(try run(["run", "--target", "nsobject"] + safety), mentioning: "needs the Objective-C runtime")
        assertUsageError(
            try run(["replay", "--target", "nsobject", try edited("any.json") { _ in }]),
            mentioning: "needs the Objective-C runtime")
        try assertReplayRejects(edited("nsobject.json") { $0["target"] = "nsobject" }, mentioning: "needs the Objective-C runtime")
        #endif
    }
}
