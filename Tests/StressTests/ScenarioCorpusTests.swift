import FaultInjector
import FaultInjectorTools
import Foundation
import GuardCore
import XCTest

/// The hand-written scenarios shipped in `Tests/StressTests/Scenarios/`: one per planted bug (`bug-NAME.scenario`,
/// at most 2 workers × 3 operations, against that bug) and the reported races rewritten as text. Each parses, says
/// in one line what it shows (a race, or a sequential misuse), and fails its target under controlled schedules; the
/// claim "a race" or "a sequential misuse" is checked by running the serial orders; the guard passes the reported
/// races.
final class ScenarioCorpusTests: XCTestCase {
    /// Schedules tried per scenario before it counts as never failing (random and PCT depth 3, alternately).
    private static let schedules = 600

    private func scenarios() throws -> [(name: String, loaded: LoadedScenario)] {
        let url = try XCTUnwrap(Bundle.module.url(forResource: "Scenarios", withExtension: nil), "the Scenarios resource is missing")
        let names = try FileManager.default.contentsOfDirectory(atPath: url.path).filter { $0.hasSuffix(".scenario") }.sorted()
        return try names.map { ($0, try ScenarioFile.load(url.appendingPathComponent($0).path)) }
    }

    private func target(_ name: String) throws -> any SystemUnderTest {
        try XCTUnwrap(TargetCatalog.make(name, diagnostics: CountingSink(keepsEvents: false)), name)
    }

    /// The signatures of failing controlled runs of `scenario` against `target` (seeds 1, 2, ..., random and PCT
    /// alternately), until `enough` says so or ``schedules`` ran; a deadlocked run ends the search (its workers stay
    /// blocked in this process).
    private func failures(
        _ scenario: Scenario, against target: String, enough: ([String]) -> Bool
    ) throws -> [String] {
        var found: [String] = []
        for seed in 1...UInt64(Self.schedules) {
            var settings = ControlledRunner.Settings()
            settings.strategy = seed % 2 == 0 ? .random : .pct(depth: 3)
            let run = Scenario(configuration: scenario.configuration, seed: seed, operations: scenario.operations)
            let result = ControlledRunner(settings: settings).runAndEvaluate(run, against: try self.target(target))
            if !result.passed { found.append(result.verdict.signature) }
            if result.verdict.abandoned || enough(found) { break }
        }
        return found
    }

    func testEveryScenarioParsesAndSaysInOneLineWhatItShows() throws {
        let all = try scenarios()
        XCTAssertGreaterThanOrEqual(all.count, PlantedBug.allCases.count + 6)
        for (name, loaded) in all {
            let description = try XCTUnwrap(loaded.description, "\(name) says what it shows")
            XCTAssertFalse(description.isEmpty, name)
            XCTAssertTrue(
                description.contains("a sequential misuse, not a race") || description.contains("a race"),
                "\(name) says whether it is a race: \(description)")
            XCTAssertTrue(loaded.isText, name)
        }
    }

    /// Every planted bug has its scenario, small enough to explore, and controlled schedules of it fail; a scenario
    /// that says "a race" fails in some schedule with a failure no serial order shows, one that says "a sequential
    /// misuse" fails with a failure a serial order shows too.
    func testEveryPlantedBugHasASmallScenarioThatFindsIt() throws {
        let all = Dictionary(uniqueKeysWithValues: try scenarios().map { ($0.name, $0.loaded) })
        for bug in PlantedBug.allCases {
            let name = "\(bug.rawValue).scenario"
            let loaded = try XCTUnwrap(all[name], "\(bug.rawValue) has no scenario \(name)")
            XCTAssertEqual(loaded.target, bug.rawValue, name)
            XCTAssertLessThanOrEqual(loaded.scenario.operations.count, 2, name)
            XCTAssertLessThanOrEqual(loaded.scenario.operations.map(\.count).max() ?? 0, 3, name)
            let target = try self.target(bug.rawValue)
            let claimsRace = !(loaded.description ?? "").contains("a sequential misuse, not a race")
            let found = try failures(loaded.scenario, against: bug.rawValue) { signatures in
                guard let last = signatures.last else { return false }
                let verdict = RaceVerdict.judge(loaded.scenario, failingWith: last, against: target)
                return verdict.needsConcurrency == claimsRace || !claimsRace
            }
            let last = try XCTUnwrap(found.last, "\(Self.schedules) controlled schedules of \(name) never failed")
            let verdict = RaceVerdict.judge(loaded.scenario, failingWith: last, against: target)
            XCTAssertEqual(verdict.needsConcurrency, claimsRace, "\(name) (\(last)): \(verdict.summary)")
        }
    }

    /// The reported races as text: each fails its target, and the guard passes its operations.
    func testEveryReportedRaceScenarioFailsItsTargetAndPassesTheGuard() throws {
        var checked = 0
        for (name, loaded) in try scenarios() where !name.hasPrefix("bug-") {
            checked += 1
            let found = try failures(loaded.scenario, against: loaded.target) { !$0.isEmpty }
            XCTAssertFalse(found.isEmpty, "\(name): \(loaded.target) never failed it")
            for seed: UInt64 in 1...20 {
                let run = Scenario(configuration: loaded.scenario.configuration, seed: seed, operations: loaded.scenario.operations)
                let result = ControlledRunner().runAndEvaluate(run, against: try target("guard"))
                XCTAssertTrue(result.passed, "\(name), seed \(seed): the guard failed: \(result.verdict.signature)")
            }
        }
        XCTAssertEqual(checked, 6, "the six corpus files of the reported races, as text")
    }
}
