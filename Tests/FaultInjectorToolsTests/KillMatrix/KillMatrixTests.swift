import FaultInjector
@testable import FaultInjectorTools
import Foundation
import XCTest

/// The kill matrix runs every planted bug it is given and the guard: it passes only when each bug is caught and
/// replays, and the guard keeps the oracle; its JSON and JUnit reports say the same.
final class KillMatrixTests: XCTestCase {
    func testAKillMatrixPassesOnlyWhenEveryBugIsCaughtAndTheGuardIsClean() {
        var settings = KillMatrix.Settings()
        settings.bugs = [.unregisteredRemovalForwarded, .notifyLiveStorage]
        settings.runners = [.controlled(ControlledRunner.Settings())]
        settings.seeds = 2
        settings.budget = 2
        settings.replayRuns = 2
        settings.outputDirectory = NSTemporaryDirectory() + "kill-matrix-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: settings.outputDirectory) }
        let result = KillMatrix(settings: settings).run()
        XCTAssertEqual(result.mutants.map(\.target), settings.bugs.map(\.rawValue))
        for cell in result.mutants {
            XCTAssertEqual(cell.caughtSeeds, 2, cell.target)
            XCTAssertEqual(cell.detectionSeconds.count, 2, cell.target)
            XCTAssertLessThan(cell.medianSeconds ?? .infinity, 2, cell.target)
            XCTAssertEqual(cell.replay?.replays, true, "\(cell.target): \(String(describing: cell.replay))")
        }
        XCTAssertEqual(result.guardCells.count, 1)
        XCTAssertEqual(result.guardCells.first?.violations, 0)
        XCTAssertGreaterThan(result.guardCells.first?.rounds ?? 0, 0)
        XCTAssertTrue(result.passed)
        XCTAssertEqual(result.survivors, [])

        let report = StressReport(killMatrix: result, isolation: .inProcess, exitCode: 0)
        XCTAssertEqual(report.command, "mutants")
        XCTAssertEqual(report.mutants?.allCaught, true)
        XCTAssertEqual(report.mutants?.guardClean, true)
        XCTAssertEqual(report.mutants?.cells.count, 2)
        let junit = JUnitReport(killMatrix: result, startedAt: Date()).xml
        XCTAssertEqual(junit.components(separatedBy: "<testcase ").count - 1, 3, junit)
        XCTAssertFalse(junit.contains("<failure"), junit)
    }
}
