@testable import FaultInjector
import XCTest

/// Partial-order reduction agrees with brute force on guard scenarios of two workers with three operations each.
///
/// Brute force is the depth-first search without reduction: every interleaving, here those with at most two
/// preemptions (all of them would be about 10^25 runs). Each of its executions is put in its class (the canonical
/// order of its steps under the dependency relation), so the comparison checks, on thousands of executions:
/// - every execution of one class records the same canonical history (its digest; a difference would mean the
///   footprints miss a dependency, and the search would end "not a proof");
/// - the bounded reduced search (source sets, the conservative extra backtrack point) explores exactly the brute
///   force's classes, with the same digests and the same oracle signatures, failing classes included;
/// - the unbounded reduced search explores every one of them, again with the same digests and signatures.
final class ExplorerBruteForceTests: XCTestCase {
    /// Observe with `.initial` racing an unobserve, with mutations in between, each way round.
    static let registrationRace = GuardScenarios.make([
        ["observe c0 o0 k0 [initial,new]", "mutate o0 k0", "unobserve c0 o0 k0"],
        ["unobserve c0 o0 k0", "mutate o0 k0", "observe c0 o0 k0 []"],
    ])
    /// The observer released while the other worker mutates, removes everything and observes.
    static let releaseRace = GuardScenarios.make([
        ["observe c0 o0 k0 []", "release-observer c0", "mutate o0 k0"],
        ["mutate o0 k0", "unobserve-all c0", "observe c0 o0 k0 [initial,new]"],
    ])

    private func assertAgreement(
        _ scenario: Scenario, _ target: any SystemUnderTest, expectsFailures: Bool, _ label: String
    ) {
        let brute = ExplorationRuns.search(scenario, against: target, settings: ExplorationRuns.settings(reduction: false, bound: 2))
        let bounded = ExplorationRuns.search(scenario, against: target, settings: ExplorationRuns.settings(bound: 2))
        let full = ExplorationRuns.search(scenario, against: target)
        for search in [brute, bounded, full] {
            if case .notAProof(let reason) = search.outcome.answer { XCTFail("\(label): not a proof: \(reason)") }
        }
        let repeated = brute.executionsPerClass.values.filter { $0 > 1 }
        XCTAssertGreaterThan(repeated.count, 0, "\(label): brute force ran some class more than once")
        XCTAssertEqual(bounded.verdicts, brute.verdicts, "\(label): the bounded reduction explores the brute force's classes")
        for (key, verdict) in brute.verdicts {
            XCTAssertEqual(full.verdicts[key], verdict, "\(label): a brute-force class the reduction missed or judged otherwise")
        }
        let failing = brute.verdicts.values.filter { !$0.signature.isEmpty }
        XCTAssertEqual(!failing.isEmpty, expectsFailures, "\(label): failing classes \(failing.map(\.signature))")
        print(
            "\(label): brute force \(brute.outcome.executions) executions in \(brute.verdicts.count) classes "
                + "(\(repeated.reduce(0, +)) executions of \(repeated.count) classes run more than once, each class one "
                + "digest), \(failing.count) failing; reduction within 2 preemptions \(bounded.outcome.summary); "
                + "unbounded \(full.outcome.summary)")
    }

    func testTheRegistrationRaceAgreesWithBruteForce() {
        assertAgreement(Self.registrationRace, GuardScenarios.guardTarget, expectsFailures: false, "guard, registration race")
    }

    func testTheReleaseRaceAgreesWithBruteForce() {
        assertAgreement(Self.releaseRace, GuardScenarios.guardTarget, expectsFailures: false, "guard, release race")
    }

    /// The same on a planted bug, whose failing classes both searches must find alike.
    func testFailingClassesAgreeWithBruteForce() {
        assertAgreement(
            Self.registrationRace, PlantedBugTarget(.deliveryCheckRemoved), expectsFailures: true,
            "bug-delivery-check-removed, registration race")
    }
}
