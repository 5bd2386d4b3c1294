@testable import FaultInjector
import FaultInjectorTestSupport
@testable import FaultInjectorTools
import Foundation
import XCTest

/// No report output destroys a file: a report replaces only an earlier report of the same kind (or an empty file, or
/// writes through a device); anything else in its way is refused before the command runs (exit 2, unless
/// `--force`), a report name that would collide with the campaign's own seed files is refused, and a file that
/// appears at the path while the command runs is kept, the report going beside it.
final class ReportOverwriteTests: XCTestCase {
    private var directory: TemporaryDirectory!

    override func setUpWithError() throws {
        directory = try TemporaryDirectory("fi-report-overwrite")
    }

    override func tearDown() {
        directory?.remove()
        directory = nil
    }

    private func run(_ arguments: [String], timeout: Double = 60, file: StaticString = #filePath, line: UInt = #line) throws -> GuardStressProcess.Outcome {
        try GuardStressProcess.run(arguments, in: directory, timeout: timeout, file: file, line: line)
    }

    private func contents(_ name: String) throws -> Data {
        try Data(contentsOf: URL(fileURLWithPath: directory.file(name)))
    }

    // MARK: Recognising a report

    func testEachKindRecognisesItsOwnReportsAndNothingElse() throws {
        let report = try StressReport(
            replay: Replayer(file: SeedFileStore.read(directory.write(RunFixtures.controlledSeedFileData(), to: "s.json")))
                .replay(runs: 1),
            file: SeedFileStore.read(directory.file("s.json")), path: "s.json", target: "raw", runner: .chaos,
            isolation: .inProcess, exitCode: 1, seconds: 0
        ).encoded()
        let samples: [ReportKind: Data] = [
            .stressReport: report,
            .junit: Data(#"<?xml version="1.0" encoding="UTF-8"?>\#n<testsuites name="guard-stress" tests="1">"#.utf8),
            .benchFigures: Data(#"[{"name": "a", "value": 1.5, "unit": "ns", "baseline": "b", "ratio": 2}]"#.utf8),
            .storyPage: Data("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n\(ReportKind.pageGeneratorTag)\n".utf8),
        ]
        let others: [Data] = [
            try RunFixtures.controlledSeedFileData(), Data("{\"format\": \"kvoguard-seed\"}".utf8),
            Data([0x7F, 0x45, 0x4C, 0x46, 2, 1, 1, 0]), Data("import Foundation\n".utf8), Data("[1, 2]".utf8),
            Data("[]\n".utf8),
            Data("<!DOCTYPE html><html><body>mine</body></html>".utf8),
        ]
        for kind in ReportKind.allCases {
            for (sampleKind, sample) in samples {
                XCTAssertEqual(kind.recognizes(sample), kind == sampleKind, "\(kind) on a \(sampleKind) sample")
            }
            for other in others { XCTAssertFalse(kind.recognizes(other), "\(kind) on \(String(decoding: other, as: UTF8.self))") }
        }
    }

    // MARK: At write time

    /// A file that is not a report, appearing at the path after the check, is kept; the report goes beside it
    /// under the first free number, and both survive.
    func testAFileThatAppearsAfterTheCheckIsKeptAndTheReportGoesBesideIt() throws {
        let path = directory.file("report.json")
        let destination = ReportDestination(path: path, kind: .stressReport)
        XCTAssertNil(destination.conflict, "nothing is there yet")
        let seed = try RunFixtures.controlledSeedFileData()
        try directory.write(seed, to: "report.json")
        try directory.write("taken\n", to: "report.2.json")
        XCTAssertEqual(destination.conflict, "a guard-stress seed file")
        let report = Data("{\"format\": \"kvoguard-stress-report\"}\n".utf8)
        let written = try destination.write(report)
        XCTAssertEqual(written.path, directory.file("report.3.json"))
        XCTAssertEqual(written.detour, "\(path) appeared meanwhile and may not be replaced; it was left as it is")
        XCTAssertEqual(try contents("report.json"), seed, "the seed file is untouched")
        XCTAssertEqual(try contents("report.2.json"), Data("taken\n".utf8))
        XCTAssertEqual(try contents("report.3.json"), report)
        XCTAssertEqual(try directory.contents().filter { $0.hasSuffix(".tmp") }, [])
    }

    func testAnEarlierReportAnEmptyFileAndADeviceAreReplacedAndForceReplacesAnything() throws {
        let report = Data("{\"format\": \"kvoguard-stress-report\", \"n\": 2}\n".utf8)
        try directory.write("{\"format\": \"kvoguard-stress-report\", \"n\": 1}\n", to: "earlier.json")
        try directory.write("", to: "empty.json")
        try directory.write("keep me\n", to: "notes.txt")
        for name in ["earlier.json", "empty.json"] {
            XCTAssertEqual(try ReportDestination(path: directory.file(name), kind: .stressReport).write(report), WrittenReport(path: directory.file(name)))
            XCTAssertEqual(try contents(name), report, name)
        }
        XCTAssertNil(ReportDestination(path: "/dev/null", kind: .junit).conflict)
        XCTAssertEqual(try ReportDestination(path: "/dev/null", kind: .junit).write(Data("x".utf8)).path, "/dev/null")
        let notes = ReportDestination(path: directory.file("notes.txt"), kind: .junit)
        XCTAssertEqual(notes.conflict, "a file that is not a guard-stress JUnit report")
        XCTAssertEqual(try notes.write(report).path, directory.file("notes.2.txt"))
        XCTAssertEqual(try contents("notes.txt"), Data("keep me\n".utf8))
        XCTAssertEqual(try ReportDestination(path: directory.file("notes.txt"), kind: .junit, force: true).write(report), WrittenReport(path: directory.file("notes.txt")))
        XCTAssertEqual(try contents("notes.txt"), report)
    }

    /// A symbolic link to nothing is in the way too: refused up front (writing would replace the link), never taken
    /// for a file that appeared meanwhile; `--force` replaces the link itself.
    func testADanglingSymbolicLinkIsRefusedUnlessForced() throws {
        let link = directory.file("dangling.json")
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: "nowhere.json")
        let destination = ReportDestination(path: link, kind: .stressReport)
        XCTAssertEqual(destination.conflict, "a symbolic link to something that does not exist")
        let report = Data("{\"format\": \"kvoguard-stress-report\"}\n".utf8)
        XCTAssertEqual(try ReportDestination(path: link, kind: .stressReport, force: true).write(report).path, link)
        XCTAssertEqual(try contents("dangling.json"), report)
        XCTAssertFalse(FileManager.default.fileExists(atPath: directory.file("nowhere.json")))
    }

    // MARK: Named pipes

    /// A named pipe that a process reads gets the whole report, in place.
    func testANamedPipeWithAReaderGetsTheWholeReport() throws {
        let pipe = try makeNamedPipe("report.json")
        let report = Data(repeating: UInt8(ascii: "x"), count: 300_000)  // more than a pipe buffers
        let received = ReceivedBytes()
        let reader = Thread {
            // Opening blocks until the writer opens its end; reading ends when the writer closes it.
            let descriptor = open(pipe, O_RDONLY)
            var bytes = Data()
            var buffer = [UInt8](repeating: 0, count: 65_536)
            while descriptor >= 0 {
                let count = read(descriptor, &buffer, buffer.count)
                guard count > 0 else { break }
                bytes.append(contentsOf: buffer[..<count])
            }
            if descriptor >= 0 { close(descriptor) }
            received.set(bytes)
        }
        reader.start()
        let written = try ReportDestination(path: pipe, kind: .stressReport, readerWait: 30).write(report)
        XCTAssertEqual(written, WrittenReport(path: pipe))
        XCTAssertTrue(received.wait(seconds: 30), "the reader got the end of the data")
        XCTAssertEqual(received.value, report)
    }

    /// A named pipe nobody opens for reading does not block the write for good: after the wait the report goes
    /// beside the pipe, whole, and says why.
    func testANamedPipeNobodyReadsGetsTheReportBesideItAfterTheWait() throws {
        let pipe = try makeNamedPipe("report.json")
        let report = Data("{\"format\": \"kvoguard-stress-report\"}\n".utf8)
        let started = Date()
        let written = try ReportDestination(path: pipe, kind: .stressReport, readerWait: 0.2).write(report)
        XCTAssertLessThan(Date().timeIntervalSince(started), 20, "the write waited about 0.2 s, not for good")
        XCTAssertEqual(written.path, directory.file("report.2.json"))
        XCTAssertEqual(written.detour, "cannot write \(pipe): no process opened the pipe for reading within 0.2 seconds")
        XCTAssertEqual(try contents("report.2.json"), report)
    }

    /// The command line: `--json` naming a pipe nobody reads ends the command (it does not hang), with the report
    /// beside the pipe and a line saying so.
    func testRunWithJSONToAnUnreadPipeWritesTheReportBesideIt() throws {
        let pipe = try makeNamedPipe("report.json")
        let outcome = try run(
            ["run", "--target", "guard", "--queues", "4", "--ops", "200", "--duration", "1", "--out", directory.file("seeds"),
             "--json", pipe],
            timeout: 120)
        XCTAssertEqual(outcome.status, 0, outcome.stdout + outcome.stderr)
        XCTAssertTrue(
            outcome.stderr.contains("no process opened the pipe for reading within 10 seconds; the JSON report was written to "
                + directory.file("report.2.json")), outcome.stderr)
        XCTAssertTrue(ReportKind.stressReport.recognizes(try contents("report.2.json")))
    }

    private func makeNamedPipe(_ name: String) throws -> String {
        let path = directory.file(name)
        let made = mkfifo(path, 0o600)
        XCTAssertEqual(made, 0, "mkfifo: \(String(cString: strerror(errno)))")
        return try XCTUnwrap(made == 0 ? path : nil)
    }

    func testNumberedNamesKeepTheExtensionAndTheDirectory() {
        XCTAssertEqual(ReportDestination.numbered("report.json", 2), "report.2.json")
        XCTAssertEqual(ReportDestination.numbered("a.d/report", 3), "a.d/report.3")
        XCTAssertEqual(ReportDestination.numbered(".hidden", 2), ".hidden.2")
        XCTAssertEqual(ReportDestination.numbered("/x/y.tar.gz", 2), "/x/y.tar.2.gz")
    }

    /// Every JUnit report starts its root with the marker (the text CI greps for), so a later run recognises it.
    func testAJUnitReportCarriesTheMarkerItIsRecognisedBy() {
        let xml = JUnitReport(suites: []).xml
        XCTAssertTrue(xml.contains("\n" + #"<testsuites name="guard-stress" tests="0""#), xml)
        XCTAssertTrue(ReportKind.junit.recognizes(Data(xml.utf8)), xml)
    }

    // MARK: Before anything runs (the command line)

    /// The tester's case: `run --json` naming, inside `--out`, the seed file the campaign is about to write. Refused
    /// up front (exit 2, no campaign, no seed file directory made), for `--junit` and `mutants` too.
    func testAReportNamedLikeTheCampaignsOwnSeedFilesIsRefusedBeforeTheCampaign() throws {
        let checks: [[String]] = [
            ["run", "--target", "raw", "--runner", "controlled", "--duration", "1", "--seed", "5", "--stop-at-first-failure",
             "--out", "keep", "--json", "keep/seed-raw-pct-4243500544217292381.json"],
            ["run", "--target", "raw", "--ops", "50", "--duration", "1", "--out", "keep", "--junit", "./keep/seed-raw-1.log"],
            ["run", "--target", "raw", "--ops", "50", "--duration", "1", "--out", "keep", "--json", "keep", "--force"],
            ["run", "--target", "raw", "--ops", "50", "--duration", "1", "--out", "keep/seeds", "--json", "keep"],
            ["mutants", "--seeds", "1", "--budget", "0.1", "--filter", "dedup", "--out", "keep",
             "--json", "keep/bug-dedup-removed-controlled/seed-x.json", "--force"],
        ]
        for arguments in checks {
            let outcome = try run(arguments)
            GuardStressProcess.assertUsageError(outcome, mentioning: "seed file directory --out")
            XCTAssertFalse(FileManager.default.fileExists(atPath: directory.file("keep")), "\(arguments): nothing ran")
        }
    }

    /// `--json` / `--junit` / `--html` naming an existing file that is not a report of that kind: a seed file of an
    /// earlier run, an executable, a source file, the other kind of report. Exit 2 before anything runs; the file is
    /// unchanged. `--force` writes it anyway.
    func testAnExistingFileThatIsNotAReportOfTheKindIsRefusedUnlessForced() throws {
        let seedData = try RunFixtures.controlledSeedFileData()
        try directory.write(seedData, to: "input.json")
        try directory.write(seedData, to: "earlier-seed.json")
        let binary = try Data(contentsOf: GuardStressProcess.executable())
        try directory.write(binary, to: "guard-stress-copy")
        try directory.write("import Foundation\n", to: "main.swift")
        try directory.write(#"<?xml version="1.0" encoding="UTF-8"?>\#n<testsuites name="guard-stress"></testsuites>\#n"#, to: "junit.xml")
        let checks: [([String], String, String)] = [
            (["replay", "input.json", "--runs", "1", "--json", "earlier-seed.json"], "earlier-seed.json", "is a guard-stress seed file"),
            (["replay", "input.json", "--runs", "1", "--junit", "main.swift"], "main.swift", "is a file that is not a guard-stress JUnit report"),
            (["replay", "input.json", "--runs", "1", "--json", "junit.xml"], "junit.xml", "is a guard-stress JUnit report, not a guard-stress JSON report"),
            (["run", "--target", "raw", "--ops", "50", "--duration", "1", "--out", "seeds", "--json", "earlier-seed.json"],
             "earlier-seed.json", "is a guard-stress seed file"),
            (["mutants", "--seeds", "1", "--budget", "0.1", "--filter", "dedup", "--out", "m", "--junit", "main.swift"],
             "main.swift", "is a file that is not"),
            (["bench", "--quick", "--filter", "notify.floor", "--json", "guard-stress-copy"], "guard-stress-copy", "is an executable"),
            (["explain", "input.json", "--html", "earlier-seed.json"], "earlier-seed.json", "is a guard-stress seed file"),
        ]
        for (arguments, victim, phrase) in checks {
            let before = try contents(victim)
            let outcome = try run(arguments)
            GuardStressProcess.assertUsageError(outcome, mentioning: phrase)
            XCTAssertTrue(outcome.stderr.contains("--force"), "the error offers --force: \(outcome.stderr)")
            XCTAssertEqual(try contents(victim), before, "\(arguments) changed \(victim)")
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: directory.file("seeds")), "no campaign ran")
        XCTAssertFalse(FileManager.default.fileExists(atPath: directory.file("m")), "no kill matrix ran")

        let forced = try run(["replay", "input.json", "--runs", "1", "--json", "earlier-seed.json", "--force"])
        XCTAssertEqual(forced.status, 1, forced.stderr)
        let json = try JSONSerialization.jsonObject(with: contents("earlier-seed.json")) as? [String: Any]
        XCTAssertEqual(json?["format"] as? String, "kvoguard-stress-report")
        GuardStressProcess.assertUsageError(
            try run(["replay", "input.json", "--runs", "1", "--json", "input.json", "--force"]), mentioning: "names the input file")
        XCTAssertEqual(try contents("input.json"), seedData, "--force never lets a report replace the input")
    }

    /// Re-running a command replaces its own earlier reports (what CI users expect), an empty file is taken, and a
    /// page is replaced by a page.
    func testReRunningACommandReplacesItsOwnReports() throws {
        try directory.write(RunFixtures.controlledSeedFileData(), to: "input.json")
        try directory.write("", to: "empty.xml")
        for attempt in 1...2 {
            let replayed = try run(["replay", "input.json", "--runs", "1", "--json", "r.json", "--junit", "empty.xml"])
            XCTAssertEqual(replayed.status, 1, "attempt \(attempt): \(replayed.stderr)")
            XCTAssertEqual(replayed.stderr, "", "attempt \(attempt)")
            let explained = try run(["explain", "input.json", "--html", "story.html"])
            XCTAssertEqual(explained.status, 1, "attempt \(attempt): \(explained.stderr)")
            XCTAssertTrue(explained.stdout.contains("wrote story.html"), explained.stdout)
        }
        XCTAssertTrue(ReportKind.stressReport.recognizes(try contents("r.json")))
        XCTAssertTrue(ReportKind.junit.recognizes(try contents("empty.xml")))
        XCTAssertTrue(ReportKind.storyPage.recognizes(try contents("story.html")))
        XCTAssertEqual(try directory.contents().filter { $0.contains(".2.") }, [], "nothing was written beside")
    }

    /// A file that is not a report, appearing at the report's path while the campaign runs, is kept; the report is
    /// written beside it, and guard-stress says where.
    func testAFileAppearingDuringTheCampaignIsKeptAndTheReportWrittenBesideIt() throws {
        let process = Process()
        process.executableURL = try GuardStressProcess.executable()
        process.arguments = [
            "run", "--in-process", "--no-compare", "--queues", "2", "--ops-per-queue", "20", "--duration", "2", "--seed", "3",
            "--out", "seeds", "--json", "report.json",
        ]
        process.currentDirectoryURL = URL(fileURLWithPath: directory.path)
        let errors = Pipe()
        process.standardOutput = FileHandle.nullDevice
        process.standardError = errors
        try process.run()
        usleep(500_000)
        XCTAssertTrue(process.isRunning, "the campaign should still be running")
        let seed = try RunFixtures.controlledSeedFileData()
        try directory.write(seed, to: "report.json")
        let stderr = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        XCTAssertEqual(process.terminationStatus, 0, stderr)
        XCTAssertEqual(try contents("report.json"), seed, "the file that appeared is kept")
        XCTAssertTrue(ReportKind.stressReport.recognizes(try contents("report.2.json")), "the report is beside it")
        XCTAssertTrue(stderr.contains("the JSON report was written to report.2.json"), stderr)
    }
}

/// Bytes a reader thread received, and a signal for when it has them.
private final class ReceivedBytes: @unchecked Sendable {
    private let lock = NSLock()
    private let done = DispatchSemaphore(value: 0)
    private var bytes = Data()

    func set(_ data: Data) {
        lock.withLock { bytes = data }
        done.signal()
    }

    func wait(seconds: Double) -> Bool { done.wait(timeout: .now() + seconds) == .success }

    var value: Data { lock.withLock { bytes } }
}
