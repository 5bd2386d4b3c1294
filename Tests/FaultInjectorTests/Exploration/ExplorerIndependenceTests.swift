@testable import FaultInjector
import GuardCore
import XCTest

/// What two workers share only through the harness or GuardCore's process-wide caches makes no step of theirs
/// dependent: the harness's records of what it made and when it ended (``UnorderedRecords``) count in no footprint,
/// and a process-wide cache's lookups under its lock are read-only sections (``LockMode/shared``), which commute.
/// So workers on disjoint controllers and objects explore as exactly one class, whatever they do.
final class ExplorerIndependenceTests: XCTestCase {
    private func explore(_ scenario: Scenario) -> ExplorationOutcome {
        var settings = ExplorationSettings()
        settings.stopsAtFirstViolation = false
        return Explorer(scenario: scenario, target: GuardScenarios.guardTarget, settings: settings).explore()
    }

    /// Each worker releases its own observer (the harness records the new observer and controller and the old
    /// ones' ends), observes its own object with `.initial` (GuardCore's per-class caches are read) and changes it:
    /// one class. The same operations on one shared controller and object are dependent and give many.
    func testWorkersOnDisjointControllersAndObjectsAreOneClass() {
        let disjoint = GuardScenarios.make(
            [
                ["release-observer c0", "observe c0 o0 k0 [initial,new]", "mutate o0 k0"],
                ["release-observer c1", "observe c1 o1 k0 [initial,new]", "mutate o1 k0"],
            ], controllers: 2, objects: 2)
        let outcome = explore(disjoint)
        XCTAssertEqual(outcome.answer, .complete, outcome.summary)
        XCTAssertEqual(outcome.classes, 1, "disjoint workers: \(outcome.summary)")
        XCTAssertEqual(outcome.executions, 1, outcome.summary)

        let shared = GuardScenarios.make([
            ["release-observer c0", "observe c0 o0 k0 [initial,new]", "mutate o0 k0"],
            ["release-observer c0", "observe c0 o0 k0 [initial,new]", "mutate o0 k0"],
        ])
        let sharedOutcome = explore(shared)
        XCTAssertEqual(sharedOutcome.answer, .complete, sharedOutcome.summary)
        XCTAssertGreaterThan(sharedOutcome.classes, 100, "one controller and object: \(sharedOutcome.summary)")
    }

    /// Releases alone touch only the harness's records and each worker's own slot: one class, where the records,
    /// counted as written under their lock, would order every release of one worker against the other's.
    func testReleasesOfDifferentObserversAreOneClass() {
        let scenario = GuardScenarios.make(
            [["release-observer c0", "release-observer c0"], ["release-observer c1", "release-observer c1"]],
            controllers: 2)
        let outcome = explore(scenario)
        XCTAssertEqual(outcome.answer, .complete, outcome.summary)
        XCTAssertEqual(outcome.classes, 1, outcome.summary)
    }
}
