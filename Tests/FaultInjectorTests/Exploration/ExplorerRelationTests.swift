@testable import FaultInjector
import GuardCore
import XCTest

/// The dependency relation is load-bearing: the registration state's lock-free accesses are what lets the explorer
/// find a race decided by the order of an observe's activation and an unobserve's withdrawal.
///
/// The target has the guard's shape of that race, with two of its old flaws: the observing thread activates its
/// registration lock-free (one compare-and-exchange after the runtime's add, as the guard does); a registration an
/// unobserve cancelled meanwhile gets no initial notification (`initial-not-exactly-once`, the corpus's
/// `.initial`-removed-during-observe failure); and a delivery does not check the state (`delivery-outside-registration`).
final class ExplorerRelationTests: XCTestCase {
    /// The baseline with a lock-free activation and no initial notification after a cancellation.
    final class LockFreeActivationController: BaselineController, @unchecked Sendable {
        override var activatesUnderLock: Bool { false }
        override var deliversInitialAfterCancellation: Bool { false }
        override class func deliver(
            _ change: KeyValueChange, of object: StressObject, through bridge: PlantedBridge, in table: PlantedTable
        ) {
            bridge.forward(change, of: object)
        }
    }

    struct LockFreeActivationTarget: SystemUnderTest {
        let name = "lock-free-activation"
        let promisesGuardSemantics = true
        var observableKeys: Set<StressKey> { Set(StressKey.classic) }

        func makeController(
            for observer: StressObserver, retainsObjects: Bool, diagnostics: any DiagnosticSink
        ) -> any StressController {
            LockFreeActivationController(observer: observer, retainsObjects: retainsObjects, table: PlantedTable())
        }
    }

    /// The corpus's scenario (observe `[initial,new]` racing an unobserve on another thread), and the same with a change
    /// after the unobserve.
    static let initialRemovals = [
        ("observe [initial,new] || unobserve", GuardScenarios.make([["observe c0 o0 k0 [initial,new]"], ["unobserve c0 o0 k0"]])),
        (
            "observe [initial,new] || unobserve; mutate",
            GuardScenarios.make([["observe c0 o0 k0 [initial,new]"], ["unobserve c0 o0 k0", "mutate o0 k0"]])
        ),
    ]

    private func explore(
        _ scenario: Scenario, against target: any SystemUnderTest = LockFreeActivationTarget(),
        omitting words: Set<SharedWord> = []
    ) -> ExplorationOutcome {
        var settings = ExplorationSettings()
        settings.stopsAtFirstViolation = false
        settings.omittedWords = Set(words.map(\.rawValue))
        return Explorer(scenario: scenario, target: target, settings: settings).explore()
    }

    /// An unobserve while the observe is adding its registration, then a change: with the registration state in the
    /// footprints the class where the withdrawal comes before the activation is found (the change reaches the handler
    /// after the unobserve returned); without it, the activation and the withdrawal look independent, the explorer
    /// never runs the withdrawal first, and the exploration ends complete with no violation: a wrong proof.
    func testRegistrationStateAccessesAreLoadBearing() {
        let scenario = GuardScenarios.make([["observe c0 o0 k0 [new]"], ["unobserve c0 o0 k0", "mutate o0 k0"]])
        let full = explore(scenario)
        XCTAssertEqual(full.answer, .violation, full.summary)
        XCTAssertEqual(full.failure?.signature, "delivery-outside-registration", full.summary)
        let blind = explore(scenario, omitting: [.registrationState])
        XCTAssertEqual(blind.answer, .complete, "without registration-state accesses: \(blind.summary)")
        XCTAssertEqual(blind.failingClasses, 0, blind.summary)
        XCTAssertLessThan(blind.classes, full.classes)
        let guarded = explore(scenario, against: GuardScenarios.guardTarget)
        XCTAssertEqual(guarded.answer, .complete, "the guard: \(guarded.summary)")
        print("with registration state \(full.summary); without \(blind.summary); the guard \(guarded.summary)")
    }

    /// The `.initial`-removed-during-observe race is found with the full relation (`initial-not-exactly-once`), and
    /// the guard passes every class.
    func testTheInitialRemovalRaceIsFound() {
        for (name, scenario) in Self.initialRemovals {
            let full = explore(scenario)
            XCTAssertEqual(full.failure?.signature, "initial-not-exactly-once", "\(name): \(full.summary)")
            XCTAssertEqual(explore(scenario, against: GuardScenarios.guardTarget).answer, .complete, name)
        }
    }
}
