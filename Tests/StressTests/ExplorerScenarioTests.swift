import FaultInjector
import Foundation
import GuardCore
import XCTest

/// Exploring the shipped scenarios: every planted bug is found by exploring its hand-written scenario, and the seed
/// file of the failing interleaving replays exactly; the dependency relation's registration-state accesses are what
/// finds the `.initial`-removed-during-observe race.
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

    private func explore(
        _ scenario: Scenario, against target: any SystemUnderTest, omitting words: Set<SharedWord> = []
    ) -> (Explorer, ExplorationOutcome) {
        var settings = ExplorationSettings()
        settings.omittedWords = Set(words.map(\.rawValue))
        let explorer = Explorer(scenario: scenario, target: target, settings: settings)
        return (explorer, explorer.explore())
    }

    /// Without the registration state's lock-free accesses in the footprint, a state check and the write it races
    /// look independent: the explorer runs one order of them and misses the other, where the planted bug fails. With
    /// them, both orders are explored and the failure is found. Shown on an unobserve racing an observe that is still
    /// adding its registration, removed during the observe (`bug-delivery-check-removed`: the state is written under
    /// the lock and read lock-free by the observing thread).
    func testRegistrationStateAccessesAreLoadBearing() throws {
        let cases = [("bug-delivery-check-removed.scenario", "bug-delivery-check-removed")]
        for (name, bug) in cases {
            let scenario = try scenario(name).scenario
            let full = explore(scenario, against: try target(bug)).1
            XCTAssertEqual(full.answer, .violation, "\(name) against \(bug): \(full.summary)")
            let blind = explore(scenario, against: try target(bug), omitting: [.registrationState]).1
            XCTAssertEqual(blind.answer, .complete, "\(name) against \(bug) without registration-state accesses: \(blind.summary)")
            XCTAssertEqual(blind.failingClasses, 0, "\(name) against \(bug) without registration-state accesses")
            print("\(name) against \(bug): with registration state \(full.summary); without \(blind.summary)")
        }
    }

    /// The `.initial`-removed-during-observe race, as the corpus's seed file and as the planted bug's scenario, is found
    /// by exploring it with the full relation. (Its failure also shows through the runtime's table lock, which orders
    /// the early removal before the add, so it is found without the registration-state accesses too.)
    func testTheInitialRemovalRaceIsFound() throws {
        let inputs = [
            ("issue7-5 (corpus)", try seed("issue7-5-initial-missing-when-removed-during-observe.json").scenario),
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
}
