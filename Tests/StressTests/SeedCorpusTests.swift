import FaultInjector
import Foundation
import GuardCore
import XCTest

/// The regression corpus (`Tests/StressTests/Seeds/`).
///
/// - One seed file per race reported in the reference material (DESIGN.md section 5), named `NN-...`: each names the
///   system it breaks; replayed, that system must fail with the misuse the file records, and the guard must pass the
///   very same operations.
/// - One seed file per defect of issue 7 (`issue7-N-...`) and per guard defect the widened scenarios found
///   (`widen-N-...`), against the guard: each failed on the code before its fix (its description says which, and its
///   failure records how), and the guard must pass it now, replayed exactly (controlled runner).
final class SeedCorpusTests: XCTestCase {
    private func corpus() throws -> [String] {
        let url = try XCTUnwrap(Bundle.module.url(forResource: "Seeds", withExtension: nil), "the Seeds resource is missing")
        let names = try FileManager.default.contentsOfDirectory(atPath: url.path).filter { $0.hasSuffix(".json") }.sorted()
        return names.map { url.appendingPathComponent($0).path }
    }

    func testTheCorpusCoversTheReportedRacesAndEveryIssue7Defect() throws {
        let names = try corpus().map { ($0 as NSString).lastPathComponent }
        XCTAssertGreaterThanOrEqual(names.filter { $0.first?.isNumber == true }.count, 6, "corpus: \(names)")
        for defect in 1...8 {
            XCTAssertEqual(names.filter { $0.hasPrefix("issue7-\(defect)-") }.count, 1, "issue 7 defect \(defect): \(names)")
        }
    }

    func testEveryReportedRaceFailsItsTargetAndPassesTheGuard() throws {
        for path in try corpus() where try SeedFileStore.read(path).target != "guard" {
            guard try !TargetCatalog.plantedBugNames.contains(SeedFileStore.read(path).target) else { continue }
            let name = (path as NSString).lastPathComponent
            let file = try SeedFileStore.read(path)
            XCTAssertFalse(file.failure.runtimeMisuses.isEmpty, "\(name): the file records no misuse to reproduce")

            let broken = try Replayer(file: file).replay(runs: 1)
            XCTAssertEqual(broken.violatedRuns, 1, "\(name): \(file.target) passed; the seed no longer shows the race")
            let misuses = broken.lastViolation?.runtimeMisuses.keys.map(\.rawValue) ?? []
            for kind in file.failure.runtimeMisuses.keys {
                XCTAssertTrue(misuses.contains(kind), "\(name): replay did not hit \(kind) (got \(misuses.sorted()))")
            }

            let guarded = try Replayer(file: file, target: GuardTarget(diagnostics: CountingSink(keepsEvents: false)))
                .replay(runs: 1)
            XCTAssertEqual(
                guarded.violatedRuns, 0, "\(name): the guard failed the same operations: \(guarded.signatures)")
        }
    }

    /// The guard's own regressions: each file says what it failed with before its fix, and the guard passes it now,
    /// every run following the same schedule.
    func testEveryGuardRegressionPassesNowAndSaysWhatItFailedBefore() throws {
        var checked = 0
        for path in try corpus() {
            let file = try SeedFileStore.read(path)
            guard file.target == "guard" else { continue }
            let name = (path as NSString).lastPathComponent
            checked += 1
            let description = try XCTUnwrap(file.description, "\(name): a guard regression says what it shows")
            XCTAssertFalse(description.contains("\n"), "\(name): the description is one line")
            XCTAssertTrue(description.contains("fails on"), "\(name): \(description)")
            XCTAssertTrue(description.contains("passes now"), "\(name): \(description)")
            XCTAssertFalse(file.failure.signature.isEmpty, "\(name): the file records how it failed before the fix")
            XCTAssertTrue(description.contains(file.failure.signature), "\(name): \(description)")
            XCTAssertEqual(file.runner, "controlled", "\(name): replays exactly")

            let outcome = try Replayer(file: file).replay(runs: 2)
            XCTAssertEqual(outcome.violatedRuns, 0, "\(name): the guard fails it again: \(outcome.signatures)")
            XCTAssertEqual(outcome.exactRuns, 2, "\(name): \(outcome.mismatches)")
            let report = try XCTUnwrap(outcome.lastResult?.report)
            XCTAssertGreaterThan(report.totalChecks, 0, "\(name): the oracle looked at the run")
        }
        XCTAssertEqual(checked, 11, "eight issue-7 defects and three found by the widened scenarios")
    }

    /// A reported race whose file names a planted bug (race 5's description-keyed singleton): a shrunk controlled
    /// file with a one-line description, that fails its planted bug with the recorded signature in every exact
    /// replay, while the guard passes the same operations.
    func testEveryRaceOnAPlantedBugFailsItEveryTimeAndPassesTheGuard() throws {
        var checked = 0
        for path in try corpus() where try TargetCatalog.plantedBugNames.contains(SeedFileStore.read(path).target) {
            let name = (path as NSString).lastPathComponent
            let file = try SeedFileStore.read(path)
            checked += 1
            let description = try XCTUnwrap(file.description, "\(name): says what it shows")
            XCTAssertFalse(description.contains("\n"), "\(name): the description is one line")
            XCTAssertEqual(file.runner, "controlled", "\(name): replays exactly")
            XCTAssertNotNil(file.shrunk, "\(name): shrunk")

            let broken = try Replayer(file: file).replay(runs: 20)
            XCTAssertEqual(broken.sameSignatureRuns, 20, "\(name): \(broken.signatures)")
            XCTAssertEqual(broken.exactRuns, 20, "\(name): \(broken.mismatches)")

            let guarded = try Replayer(file: file, target: GuardTarget(diagnostics: CountingSink(keepsEvents: false)))
                .replay(runs: 2)
            XCTAssertEqual(guarded.violatedRuns, 0, "\(name): the guard failed the same operations: \(guarded.signatures)")
        }
        XCTAssertTrue(
            try corpus().contains { ($0 as NSString).lastPathComponent.hasPrefix("05-") }, "race 5 is in the corpus")
        XCTAssertGreaterThanOrEqual(checked, 1, "race 5 runs against its planted bug")
    }
}
