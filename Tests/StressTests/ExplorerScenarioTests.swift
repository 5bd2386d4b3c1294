import FaultInjector
import FaultInjectorTools
import Foundation
import GuardCore
import XCTest

/// Exploring the shipped scenarios: every planted bug is found by exploring its hand-written scenario, and the seed
/// file of the failing interleaving replays exactly; the guard passes every interleaving of the reported races.
final class ExplorerScenarioTests: XCTestCase {
    private func scenario(_ name: String) throws -> LoadedScenario {
        let url = try XCTUnwrap(Bundle.module.url(forResource: "Scenarios", withExtension: nil), "no Scenarios resource")
        return try ScenarioFile.load(url.appendingPathComponent(name).path)
    }

    private func seed(_ name: String) throws -> LoadedScenario {
        let url = try XCTUnwrap(Bundle.module.url(forResource: "Seeds", withExtension: nil), "no Seeds resource")
        return try ScenarioFile.load(url.appendingPathComponent(name).path)
    }

    private func target(_ name: String) throws -> any SystemUnderTest {
        try XCTUnwrap(TargetCatalog.make(name, diagnostics: CountingSink(keepsEvents: false)), name)
    }

    private func explore(_ scenario: Scenario, against target: any SystemUnderTest) -> (Explorer, ExplorationOutcome) {
        let settings = ExplorationSettings()
        let explorer = Explorer(scenario: scenario, target: target, settings: settings)
        return (explorer, explorer.explore())
    }

    /// The `.initial`-removed-during-observe race, as the corpus's seed file and as the planted bug's scenario, is found
    /// by exploring it (its failure also shows through the runtime's table lock, which orders the early removal before
    /// the add); the guard passes every class of it.
    func testTheInitialRemovalRaceIsFound() throws {
        let inputs = [
            ("guard-initial-missing-when-removed-during-observe (corpus)", try seed("guard-initial-missing-when-removed-during-observe.json").scenario),
            ("bug-initial-state-missing.scenario", try scenario("bug-initial-state-missing.scenario").scenario),
        ]
        for (name, scenario) in inputs {
            let full = explore(scenario, against: try target("bug-initial-state-missing")).1
            XCTAssertEqual(full.answer, .violation, "\(name): \(full.summary)")
            XCTAssertEqual(full.failure?.signature, "runtime-misuse(deallocatedWhileObserved,notRegistered)", name)
            let guarded = explore(scenario, against: try target("guard")).1
            XCTAssertEqual(guarded.answer, .complete, "\(name) against the guard: \(guarded.summary)")
        }
    }

    /// Every access that records who is registered: a registration's state word; the controller's table of
    /// registrations (its lock and its storage); the runtime's table of the object (its publication and its lock), the
    /// observances' active flags and the announced-keys mask the runtime derives from them.
    static let registrationFootprint: [SharedWord] = [
        .registrationState, .unlockedTable, .observationTable, .observanceActive, .announcedKeys,
    ]

    /// The relation is load-bearing: with the registration state left out of the footprints (wherever it lives,
    /// ``registrationFootprint``: leaving out the state word alone is not enough here, the table locks also order
    /// these steps), exploring the corpus's `.initial`-removed-during-observe scenario and
    /// `bug-initial-state-missing` against the bug finds no dependency between the observe and the unobserve, runs
    /// one class and answers "complete, 0 violations": a wrong proof. With them both are found.
    func testRegistrationStateIsLoadBearingForTheInitialRemovalRace() throws {
        let inputs = [
            ("guard-initial-missing-when-removed-during-observe (corpus)", try seed("guard-initial-missing-when-removed-during-observe.json").scenario),
            ("bug-initial-state-missing.scenario", try scenario("bug-initial-state-missing.scenario").scenario),
        ]
        for (name, scenario) in inputs {
            var settings = ExplorationSettings()
            settings.stopsAtFirstViolation = false
            let full = Explorer(scenario: scenario, target: try target("bug-initial-state-missing"), settings: settings).explore()
            settings.omittedWords = Set(Self.registrationFootprint.map(\.rawValue))
            let blind = Explorer(scenario: scenario, target: try target("bug-initial-state-missing"), settings: settings).explore()
            XCTAssertEqual(full.answer, .violation, "\(name): \(full.summary)")
            XCTAssertGreaterThan(full.failingClasses, 0, "\(name): \(full.summary)")
            XCTAssertEqual(blind.answer, .complete, "\(name) without the registration state: \(blind.summary)")
            XCTAssertEqual(blind.failingClasses, 0, "\(name) without the registration state: \(blind.summary)")
            XCTAssertLessThan(blind.classes, full.classes, name)
            print("\(name): with the registration state \(full.summary); without \(blind.summary)")
        }
    }

    /// Each planted bug's scenario (at most 2 workers × 3 operations) explored against its bug ends in a violation,
    /// and the seed file of the failing interleaving replays it exactly, 10 runs out of 10.
    func testEveryPlantedBugIsFoundByExploringItsScenario() throws {
        for bug in PlantedBug.allCases {
            let name = "\(bug.rawValue).scenario"
            let loaded = try scenario(name)
            XCTAssertLessThanOrEqual(loaded.scenario.operations.count, 2, name)
            XCTAssertLessThanOrEqual(loaded.scenario.operations.map(\.count).max() ?? 0, 3, name)
            let (explorer, outcome) = explore(loaded.scenario, against: try target(bug.rawValue))
            XCTAssertEqual(outcome.answer, .violation, "\(name): \(outcome.summary)")
            let failure = try XCTUnwrap(outcome.failure, name)
            let file = try XCTUnwrap(explorer.seedFile(for: failure), "\(name): the failing interleaving did not fail again")
            XCTAssertEqual(file.failure.signature, failure.signature, name)
            let replay = try Replayer(file: file).replay(runs: 10)
            XCTAssertEqual(replay.violatedRuns, 10, "\(name): \(replay.signatures)")
            XCTAssertEqual(replay.sameSignatureRuns, 10, "\(name): \(replay.signatures)")
            XCTAssertEqual(replay.exactRuns, 10, "\(name): \(replay.mismatches) \(replay.exactnessNotChecked ?? "")")
            print("\(name): \(outcome.summary); its seed file replays exactly \(replay.exactRuns ?? 0)/10")
        }
    }

    /// A race explored: some class of interleavings fails with the signature and another passes, counted over every
    /// class; a sequential misuse explored: every class fails. Shrinking the race keeps it one, checked by exploring
    /// the shrunk scenario.
    func testExploringTellsARaceFromASequentialMisuseAndShrinkingKeepsTheRace() throws {
        let race = try scenario("bug-delivery-check-removed.scenario")
        let raceTarget = try target(race.target)
        let (explorer, outcome) = explore(race.scenario, against: raceTarget)
        let failure = try XCTUnwrap(outcome.failure)
        let explored = ExploredRace.explore(race.scenario, failingWith: failure.signature, against: raceTarget)
        XCTAssertTrue(explored.isRace, explored.summary)
        XCTAssertTrue(explored.complete, explored.summary)
        XCTAssertEqual(explored.failingClasses + explored.passingClasses, explored.classes, explored.summary)

        let misuse = try scenario("bug-handler-under-lock.scenario")
        let misuseTarget = try target(misuse.target)
        let misuseFailure = try XCTUnwrap(explore(misuse.scenario, against: misuseTarget).1.failure)
        let sequential = ExploredRace.explore(misuse.scenario, failingWith: misuseFailure.signature, against: misuseTarget)
        XCTAssertFalse(sequential.isRace, sequential.summary)
        XCTAssertEqual(sequential.passingClasses, 0, sequential.summary)

        let file = try XCTUnwrap(explorer.seedFile(for: failure))
        var settings = ShrinkSettings()
        settings.verificationRuns = 2
        guard case .shrunk(let shrunk) = try Shrinker(file: file, fileName: "race.json", settings: settings).shrink()
        else { return XCTFail("the explored failure did not reproduce") }
        XCTAssertTrue(shrunk.race.needsConcurrency, shrunk.race.summary)
        let check = try XCTUnwrap(shrunk.explored, "the shrunk race was not explored")
        XCTAssertTrue(check.isRace && check.complete, check.summary)
        XCTAssertEqual(shrunk.scenario.operations.filter { !$0.isEmpty }.count, 2)
        print("race: \(explored.summary); misuse: \(sequential.summary); shrunk: \(check.summary)")
    }

    /// The reported races written as text: the guard passes every interleaving of each (complete, no violation), where
    /// sampling schedules only showed that it passed the ones tried.
    func testTheGuardPassesEveryInterleavingOfTheReportedRaces() throws {
        let url = try XCTUnwrap(Bundle.module.url(forResource: "Scenarios", withExtension: nil))
        let names = try FileManager.default.contentsOfDirectory(atPath: url.path)
            .filter { $0.hasSuffix(".scenario") && !$0.hasPrefix("bug-") }.sorted()
        XCTAssertGreaterThanOrEqual(names.count, 6, "\(names)")
        for name in names {
            let outcome = explore(try scenario(name).scenario, against: try target("guard")).1
            XCTAssertEqual(outcome.answer, .complete, "\(name): \(outcome.summary)")
            print("\(name) against the guard: \(outcome.summary)")
        }
    }
}
