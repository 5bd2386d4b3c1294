import FaultInjector
import Foundation
import GuardCore
import XCTest

/// The regression corpus (`Tests/StressTests/Seeds/`). Every file has a one-line `description`.
///
/// - One seed file per reported race (the seven races and crashes users of KVO reported, numbered 1 to 7), named
///   `NN-...`: a shrunk controlled-runner file against the system it breaks (the raw runtime, or a planted bug the
///   catalog makes by name), whose description names the race (`reported race N`; one file tells races 3 and 6, the
///   same misuse). Replayed, that system fails with the recorded signature every run, each run following the
///   recorded schedule step for step. The guard must pass the very same operations: a recorded schedule belongs to
///   the target that took it (the guard reaches other schedule points), so the guard runs them under the controlled
///   runner with the file's strategy and seed, and the oracle must find zero violations. Each is a race (two workers,
///   and its failure shows in no serial order of them) or says plainly that the report reduces to a sequential misuse
///   (and a serial order does show it).
/// - One seed file per guard defect found and fixed (`guard-...`, named after what it shows), against the guard: each
///   failed on the code before its fix (its description says how, and its failure records it), and the guard must
///   pass it now, replayed exactly (controlled runner).
final class SeedCorpusTests: XCTestCase {
    /// The reported races, each told by one file (race 5 runs against its planted bug).
    private static let reportedRaces = 1...7
    /// Replays of each race file.
    private static let raceReplays = 3
    /// The guard defects found and fixed, one file each.
    private static let guardRegressions = 14

    private func corpus() throws -> [String] {
        let url = try XCTUnwrap(Bundle.module.url(forResource: "Seeds", withExtension: nil), "the Seeds resource is missing")
        let names = try FileManager.default.contentsOfDirectory(atPath: url.path).filter { $0.hasSuffix(".json") }.sorted()
        return names.map { url.appendingPathComponent($0).path }
    }

    /// The race number of a reported-race file (`04-...json` is race 4), or `nil` for a guard regression.
    private func raceNumber(_ path: String) -> Int? {
        let name = (path as NSString).lastPathComponent
        guard let dash = name.firstIndex(of: "-") else { return nil }
        return Int(name[..<dash])
    }

    /// The races a description says it tells: `reported race 4 (...` or `reported races 3 and 6 (...`.
    private func reportedRaces(in description: String) -> [Int] {
        guard let start = description.range(of: #"^reported races? [0-9]+( and [0-9]+)?"#, options: .regularExpression)
        else { return [] }
        return description[start].split(whereSeparator: { !$0.isNumber }).compactMap { Int($0) }
    }

    func testTheCorpusCoversTheReportedRacesAndEveryGuardRegression() throws {
        let paths = try corpus()
        let names = paths.map { ($0 as NSString).lastPathComponent }
        var told: [Int: [String]] = [:]
        for path in paths where raceNumber(path) != nil {
            let name = (path as NSString).lastPathComponent
            let races = reportedRaces(in: try SeedFileStore.read(path).description ?? "")
            XCTAssertTrue(races.contains(raceNumber(path)!), "\(name) tells its own race first: \(races)")
            for race in races { told[race, default: []].append(name) }
        }
        for race in Self.reportedRaces {
            XCTAssertEqual(told[race]?.count, 1, "reported race \(race) is told by one file: \(told[race] ?? [])")
        }
        XCTAssertEqual(Set(told.keys), Set(Self.reportedRaces), "\(names)")
        let regressions = paths.filter { raceNumber($0) == nil }.map { ($0 as NSString).lastPathComponent }
        XCTAssertEqual(regressions.count, Self.guardRegressions, "every guard regression is kept: \(regressions)")
        for name in regressions {
            XCTAssertTrue(name.hasPrefix("guard-"), "a guard regression is named guard-WHAT-IT-SHOWS.json: \(name)")
        }
    }

    func testEveryCorpusFileSaysInOneLineWhatItShows() throws {
        for path in try corpus() {
            let name = (path as NSString).lastPathComponent
            let file = try SeedFileStore.read(path)
            let description = try XCTUnwrap(file.description, "\(name): every corpus file says what it shows")
            XCTAssertFalse(description.isEmpty, "\(name)")
            XCTAssertFalse(description.contains("\n"), "\(name): the description is one line")
        }
    }

    /// Each race file: its target fails every replay with the recorded signature (and every misuse kind it records),
    /// following the recorded schedule exactly; the guard passes the same operations under the controlled runner.
    func testEveryReportedRaceFailsItsTargetExactlyEveryTimeAndPassesTheGuard() throws {
        var checked = 0
        for path in try corpus() {
            guard let race = raceNumber(path) else { continue }
            checked += 1
            let name = (path as NSString).lastPathComponent
            let file = try SeedFileStore.read(path)
            XCTAssertNotEqual(file.target, "guard", "\(name): a reported race breaks something other than the guard")
            XCTAssertEqual(file.runner, "controlled", "\(name): replays exactly")
            XCTAssertNotNil(file.schedule, "\(name): records the schedule it fails with")
            XCTAssertNotNil(file.shrunk, "\(name): is shrunk")
            XCTAssertFalse(file.failure.signature.isEmpty, "\(name): records its failure")
            let description = file.description ?? ""
            XCTAssertTrue(reportedRaces(in: description).contains(race), "\(name): names its race: \(description)")
            XCTAssertTrue(description.contains("guard passes"), "\(name): \(description)")

            let broken = try Replayer(file: file).replay(runs: Self.raceReplays)
            XCTAssertEqual(broken.violatedRuns, Self.raceReplays, "\(name): \(file.target) passed: \(broken.signatures)")
            XCTAssertEqual(
                broken.sameSignatureRuns, Self.raceReplays,
                "\(name): recorded \(file.failure.signature), replayed \(broken.signatures)")
            XCTAssertEqual(broken.exactRuns, Self.raceReplays, "\(name): \(broken.mismatches)")
            let misuses = broken.lastViolation?.runtimeMisuses.keys.map(\.rawValue) ?? []
            for kind in file.failure.runtimeMisuses.keys {
                XCTAssertTrue(misuses.contains(kind), "\(name): replay did not hit \(kind) (got \(misuses.sorted()))")
            }

            let guarded = try Replayer(file: file, target: GuardTarget(diagnostics: CountingSink(keepsEvents: false)))
            XCTAssertFalse(guarded.followsRecordedSchedule, "\(name): the guard takes its own schedule")
            let outcome = try guarded.replay(runs: 1)
            XCTAssertEqual(outcome.violatedRuns, 0, "\(name): the guard failed the same operations: \(outcome.signatures)")
            let report = try XCTUnwrap(outcome.lastResult?.verdict)
            XCTAssertEqual(report.runtimeMisuses.values.reduce(0, +), 0, "\(name): misuse reached the runtime")
            XCTAssertGreaterThan(report.totalChecks, 0, "\(name): the oracle looked at the run")
        }
        XCTAssertEqual(checked, 6, "six files tell the seven reported races")
    }

    /// The guard's own regressions: each file says what it failed with before its fix, and the guard passes it now,
    /// every run following the same schedule. Such a file records no schedule (the one it failed with belongs to the
    /// code before the fix), so its strategy and seed regenerate one: the replay must not claim exactness, and two
    /// separate replays must record the same history.
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
            if file.schedule?.historyDigest != nil {
                XCTAssertEqual(outcome.exactRuns, 2, "\(name): \(outcome.mismatches)")
            } else {
                XCTAssertNil(outcome.exactRuns, "\(name): nothing recorded to compare, so no run is called exact")
                XCTAssertNotNil(outcome.exactnessNotChecked, name)
                let again = try Replayer(file: file).replay(runs: 1)
                XCTAssertEqual(
                    again.lastResult?.history.digest, outcome.lastResult?.history.digest,
                    "\(name): the strategy and seed regenerate the same run")
            }
            let report = try XCTUnwrap(outcome.lastResult?.verdict)
            XCTAssertGreaterThan(report.totalChecks, 0, "\(name): the oracle looked at the run")
        }
        XCTAssertEqual(checked, Self.guardRegressions, "every guard regression replayed")
    }
}
