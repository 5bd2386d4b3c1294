@testable import FaultInjector
import FaultInjectorTestSupport
@testable import FaultInjectorTools
import Foundation
import XCTest

/// What guard-stress writes: reports, pages and seed files never land on the input, never empty an existing file
/// before the new one is ready, and a seed file directory that cannot be one is refused before a campaign runs.
final class OutputFileCommandLineTests: XCTestCase {
    private var directory: TemporaryDirectory!

    override func setUpWithError() throws {
        directory = try TemporaryDirectory("fi-output-cli")
    }

    override func tearDown() {
        directory?.remove()
        directory = nil
    }

    private func run(_ arguments: [String], file: StaticString = #filePath, line: UInt = #line) throws -> GuardStressProcess.Outcome {
        try GuardStressProcess.run(arguments, in: directory, timeout: 60, file: file, line: line)
    }

    // MARK: Reports never overwrite the input

    func testAReportOrPageNamingTheInputSeedFileIsRefused() throws {
        let seed = try directory.write(RunFixtures.controlledSeedFileData(), to: "victim.json")
        let original = try Data(contentsOf: URL(fileURLWithPath: seed))
        try FileManager.default.createSymbolicLink(atPath: directory.file("link.json"), withDestinationPath: seed)
        let checks: [[String]] = [
            ["replay", "victim.json", "--junit", "victim.json"],
            ["replay", "victim.json", "--json", "./victim.json"],
            ["replay", "victim.json", "--json", "link.json"],
            ["replay", "link.json", "--junit", seed],
            ["explain", "victim.json", "--html", "victim.json"],
            ["explain", seed, "--html", "../\((directory.path as NSString).lastPathComponent)/link.json"],
        ]
        for arguments in checks {
            GuardStressProcess.assertUsageError(try run(arguments), mentioning: "names the input file")
            XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: seed)), original, "\(arguments) changed the input")
        }
    }

    func testTheTwoReportsMustBeDifferentFilesAfterStandardizing() throws {
        let safety = ["--ops", "50", "--duration", "1", "--out", directory.file("out")]
        GuardStressProcess.assertUsageError(
            try run(["run", "--json", "r.json", "--junit", "./r.json"] + safety), mentioning: "different files")
        XCTAssertFalse(FileManager.default.fileExists(atPath: directory.file("r.json")))
    }

    // MARK: Seed file directories

    func testASeedFileDirectoryThatIsAFileIsRefusedBeforeTheCampaign() throws {
        try directory.write("keep me\n", to: "afile.txt")
        GuardStressProcess.assertUsageError(
            try run(["run", "--target", "raw", "--ops", "200", "--duration", "1", "--out", "afile.txt"]),
            mentioning: "--out needs a directory, but afile.txt is a file")
        GuardStressProcess.assertUsageError(
            try run(["run", "--ops", "50", "--duration", "1", "--out", "afile.txt/seeds"]),
            mentioning: "--out needs a directory, but afile.txt is a file")
        GuardStressProcess.assertUsageError(
            try run(["mutants", "--seeds", "1", "--budget", "0.1", "--filter", "dedup", "--out", "afile.txt"]),
            mentioning: "--out needs a directory, but afile.txt is a file")
        XCTAssertEqual(try String(contentsOfFile: directory.file("afile.txt"), encoding: .utf8), "keep me\n")
    }

    /// A seed file that cannot be written is a failure with its reason, not a quiet "limit reached".
    /// An `--out` that can never hold a file (a symbolic link loop, a dangling link, a path longer than the system
    /// takes once a seed file's name is added) is a usage error before the campaign, not a campaign that loses every
    /// seed file it writes.
    func testASeedFileDirectoryThatCanNeverHoldAFileIsRefusedBeforeTheCampaign() throws {
        try FileManager.default.createSymbolicLink(atPath: directory.file("loop1"), withDestinationPath: "loop2")
        try FileManager.default.createSymbolicLink(atPath: directory.file("loop2"), withDestinationPath: "loop1")
        try FileManager.default.createSymbolicLink(atPath: directory.file("dangling"), withDestinationPath: "nowhere")
        let long = Array(repeating: String(repeating: "d", count: 200), count: 25).joined(separator: "/")
        let almost = Array(repeating: String(repeating: "e", count: 200), count: 20).joined(separator: "/")
        let cases = [
            ("loop1", "--out needs a directory, but loop1 is a symbolic link that leads nowhere"),
            ("loop1/seeds", "--out needs a directory, but loop1 is a symbolic link that leads nowhere"),
            ("dangling", "--out needs a directory, but dangling is a symbolic link that leads nowhere"),
            (long, "the system allows at most"),
            (almost, "the files written in it need it to be at most"),
        ]
        for (out, message) in cases {
            let outcome = try run(["run", "--target", "raw", "--queues", "4", "--duration", "0.3", "--in-process", "--out", out])
            XCTAssertEqual(outcome.status, 2, "\(out.prefix(40)): \(outcome.stderr.prefix(600))")
            XCTAssertTrue(outcome.stderr.contains(message), "\(out.prefix(40)): \(outcome.stderr.prefix(600))")
            XCTAssertFalse(outcome.stdout.contains("round"), "the campaign must not run: \(outcome.stdout.prefix(600))")
        }
    }

    func testAFailedSeedFileWriteSaysWhy() throws {
        try directory.write("in the way\n", to: "plain")
        var settings = Campaign.Settings()
        settings.target = "raw"
        settings.seed = 4
        settings.scenario = RunFixtures.configuration()
        settings.operationBudget = 2_000
        settings.stopAtFirstFailure = true
        settings.isolation = .inProcess
        settings.outputDirectory = directory.file("plain/seeds")
        let summary = try Campaign(settings: settings).run()
        let failure = try XCTUnwrap(summary.failures.first, "the raw runtime should fail")
        XCTAssertNil(failure.seedFile)
        XCTAssertTrue(failure.seedFileProblem?.hasPrefix("writing it failed: ") ?? false, "\(String(describing: failure.seedFileProblem))")
        let junit = JUnitReport(campaign: summary, startedAt: Date()).xml
        XCTAssertTrue(junit.contains("no seed file (writing it failed: "), junit)
        XCTAssertFalse(junit.contains("limit was reached"), junit)
    }

    // MARK: Existing reports survive an interrupted run

    /// The report of an earlier run never outlives the run asked for: it is replaced whole (never emptied) by an
    /// `incomplete` report when the run starts, and by an `interrupted` one when SIGTERM stops it; no temporary file
    /// is left.
    func testAnInterruptedRunReplacesAnEarlierReportWithAnInterruptedOne() throws {
        let earlier = "{\"earlier\": true, \"format\": \"kvoguard-stress-report\"}\n"
        let report = try directory.write(earlier, to: "report.json")
        let process = Process()
        process.executableURL = try GuardStressProcess.executable()
        process.arguments = ["run", "--in-process", "--duration", "60", "--no-compare", "--json", report, "--out", directory.file("seeds")]
        process.currentDirectoryURL = URL(fileURLWithPath: directory.path)
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        usleep(1_500_000)
        XCTAssertTrue(process.isRunning, "the campaign should still be running")
        let running = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: report))) as? [String: Any]
        XCTAssertEqual(running?["result"] as? String, "incomplete")
        process.terminate()
        process.waitUntilExit()
        let stopped = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: report))) as? [String: Any]
        XCTAssertEqual(stopped?["result"] as? String, "interrupted")
        XCTAssertNil(stopped?["earlier"])
        XCTAssertEqual(try directory.contents().filter { $0.hasSuffix(".tmp") }, [], "no temporary file is left")
    }

    /// An atomic write that may not overwrite leaves the existing file and no temporary file behind.
    func testAtomicWritesLeaveNoPartialFile() throws {
        let path = try directory.write("first\n", to: "seed.json")
        XCTAssertThrowsError(try AtomicFile.write(Data("second\n".utf8), to: path, replacing: false)) { error in
            XCTAssertEqual((error as? FileWriteError)?.fileExists, true, "\(error)")
        }
        XCTAssertEqual(try String(contentsOfFile: path, encoding: .utf8), "first\n")
        try AtomicFile.write(Data("third\n".utf8), to: path, replacing: true)
        XCTAssertEqual(try String(contentsOfFile: path, encoding: .utf8), "third\n")
        XCTAssertThrowsError(
            try AtomicFile.write(Data("x".utf8), to: directory.file("missing/seed.json"), replacing: true), "no directory")
        XCTAssertEqual(try directory.contents(), ["seed.json"])
    }

    // MARK: Names too long for the file system

    /// A name longer than the file system allows is refused before any work: shrink's default output beside a
    /// long input name, `--out`, `--html`, and a report.
    func testOutputNamesTooLongForTheFileSystemAreRefusedBeforeAnyWork() throws {
        let longInput = String(repeating: "a", count: 245) + ".json"
        try directory.write(RunFixtures.controlledSeedFileData(), to: longInput)
        let seed = try directory.write(RunFixtures.controlledSeedFileData(), to: "seed.json")
        let tooLong = String(repeating: "b", count: 260) + ".json"
        let checks: [[String]] = [
            ["shrink", longInput],
            ["shrink", seed, "--out", tooLong],
            ["shrink", seed, "--out", "new/" + tooLong],
            ["explain", seed, "--html", tooLong],
            ["explain", seed, "--html", "x/" + tooLong],
            ["replay", seed, "--json", tooLong],
        ]
        for arguments in checks {
            GuardStressProcess.assertUsageError(try run(arguments), mentioning: "bytes long; the file system allows at most")
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: directory.file("new")), "nothing is created for a bad name")
    }

    /// A name the file system accepts is written, even when the temporary file beside it would need a longer one.
    func testAnAtomicWriteUnderTheLongestAllowedNameSucceeds() throws {
        let name = String(repeating: "c", count: 250) + ".json"
        try AtomicFile.write(Data("whole\n".utf8), to: directory.file(name), replacing: false)
        XCTAssertEqual(try String(contentsOfFile: directory.file(name), encoding: .utf8), "whole\n")
        XCTAssertEqual(try directory.contents(), [name], "no temporary file is left")
    }

    // MARK: One-character names

    /// A one-character output name is an ordinary file (Foundation's `deletingLastPathComponent` traps on one).
    func testOneCharacterOutputNamesAreWritten() throws {
        let seed = try directory.write(RunFixtures.controlledSeedFileData(), to: "seed.json")
        let explained = try run(["explain", seed, "--html", "y"])
        XCTAssertEqual(explained.status, 1, explained.stderr)
        XCTAssertTrue(FileManager.default.fileExists(atPath: directory.file("y")))
        let replayed = try run(["replay", seed, "--runs", "1", "--json", "j"])
        XCTAssertEqual(replayed.status, 1, replayed.stderr)
        XCTAssertTrue(FileManager.default.fileExists(atPath: directory.file("j")))
        let campaign = try run(["run", "--target", "raw", "--ops", "50", "--duration", "1", "--no-compare", "--out", "q"])
        XCTAssertTrue(campaign.exitedNormally)
        XCTAssertNotEqual(campaign.status, 2, campaign.stderr)
    }

    func testParentDirectoryWorksOnTheTextAlone() {
        let cases: [(String, String)] = [
            ("y", "."), ("y/", "."), ("a/b", "a"), ("a/b/", "a"), ("a//b", "a"), ("/y", "/"), ("/", "/"),
            ("./y", "."), ("/a/b/c.json", "/a/b"),
        ]
        for (path, parent) in cases { XCTAssertEqual(ParentDirectory.of(path), parent, path) }
    }
}
