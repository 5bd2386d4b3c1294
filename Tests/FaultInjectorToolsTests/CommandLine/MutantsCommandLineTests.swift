import FaultInjector
import FaultInjectorTestSupport
import FaultInjectorTools
import Foundation
import XCTest

#if canImport(FoundationXML)
import FoundationXML
#endif

/// `guard-stress mutants` end to end: the kill matrix's table, exit codes, JSON and JUnit, with rounds in child
/// processes; bad input exits 2.
final class MutantsCommandLineTests: XCTestCase {
    private var directory: TemporaryDirectory!

    override func setUpWithError() throws {
        directory = try TemporaryDirectory("fi-mutants")
    }

    override func tearDown() {
        directory?.remove()
        directory = nil
    }

    private func run(_ arguments: [String], timeout: Double = 120) throws -> GuardStressProcess.Outcome {
        try GuardStressProcess.run(arguments, in: directory, timeout: timeout)
    }

    func testTheKillMatrixCatchesEachBugOnBothRunnersAndWritesJSONAndJUnit() throws {
        let outcome = try run([
            "mutants", "--filter", "bug-early-return", "--seeds", "1", "--budget", "3", "--replays", "1",
            "--stall-timeout", "1", "--out", directory.file("seeds"), "--json", directory.file("m.json"), "--junit",
            directory.file("m.xml"),
        ])
        XCTAssertEqual(outcome.status, 0, outcome.stdout + outcome.stderr)
        let rows = outcome.stdout.split(separator: "\n").map { $0.split(separator: " ").map(String.init) }
        XCTAssertTrue(rows.contains { Array($0.prefix(4)) == ["bug-early-return-keeps-lock", "controlled", "yes", "1/1"] }, outcome.stdout)
        XCTAssertTrue(rows.contains { Array($0.prefix(4)) == ["bug-early-return-keeps-lock", "chaos", "yes", "1/1"] }, outcome.stdout)
        XCTAssertTrue(outcome.stdout.contains("guard (unmodified)"), outcome.stdout)
        XCTAssertTrue(outcome.stdout.contains("RESULT: PASS in "), outcome.stdout)
        XCTAssertTrue(outcome.stdout.hasSuffix("(exit 0)\n"), outcome.stdout)

        let report = try JSONDecoder().decode(StressReport.self, from: Data(contentsOf: URL(fileURLWithPath: directory.file("m.json"))))
        XCTAssertEqual(report.command, "mutants")
        XCTAssertEqual(report.exitCode, 0)
        let mutants = try XCTUnwrap(report.mutants)
        XCTAssertEqual(mutants.bugs, ["bug-early-return-keeps-lock"])
        XCTAssertTrue(mutants.allCaught)
        XCTAssertEqual(mutants.guardClean, true)
        XCTAssertEqual(mutants.cells.map(\.runner), ["controlled", "chaos"])
        for cell in mutants.cells {
            XCTAssertTrue(cell.caught, "\(cell)")
            XCTAssertEqual(cell.violationsByKind.keys.sorted(), ["deadlock"], "\(cell)")
            XCTAssertEqual(cell.replays, true, "\(cell)")
            XCTAssertNotNil(cell.seedFile)
        }
        XCTAssertEqual(mutants.cells.first?.replayExactRuns, 1, "the controlled file replays exactly")
        XCTAssertEqual(mutants.guardCells.map(\.caught), [false, false])

        let document = try XMLDocument(data: Data(contentsOf: URL(fileURLWithPath: directory.file("m.xml"))), options: [])
        let cases = try document.nodes(forXPath: "//testcase")
        XCTAssertEqual(cases.count, 4, "one per mutant × runner and per guard row")
        XCTAssertEqual(try document.nodes(forXPath: "//failure").count, 0)
    }

    func testBadInputExits2() throws {
        GuardStressProcess.assertUsageError(try run(["mutants", "--runner", "fast"]), mentioning: "--runner")
        GuardStressProcess.assertUsageError(try run(["mutants", "--filter", "no-such-bug"]), mentioning: "no-such-bug")
        GuardStressProcess.assertUsageError(try run(["mutants", "--seeds", "0"]), mentioning: "--seeds")
        GuardStressProcess.assertUsageError(try run(["mutants", "--budget", "-1"]), mentioning: "--budget")
        GuardStressProcess.assertUsageError(try run(["mutants", "extra"]), mentioning: "positional")
        GuardStressProcess.assertUsageError(try run(["mutants", "--bogus"]), mentioning: "--bogus")
    }

    func testHelpListsEveryPlantedBugAndTheExitCodes() throws {
        let outcome = try run(["help", "mutants"])
        XCTAssertEqual(outcome.status, 0)
        for name in TargetCatalog.plantedBugNames { XCTAssertTrue(outcome.stdout.contains(name), name) }
        XCTAssertTrue(outcome.stdout.contains("EXIT CODES"))
        XCTAssertTrue(outcome.stdout.contains("every planted bug was caught by at least one runner"))
    }
}
