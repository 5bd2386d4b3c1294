import FaultInjector
import GuardCore
import XCTest

/// The guard under every stress profile, with injected faults, checked by the full oracle (guard semantics:
/// exact results, linearizability, nothing delivered after removal). Run under ThreadSanitizer by
/// `scripts/tsan.sh`.
final class GuardStressTests: XCTestCase {
    private func runGuard(_ profile: StressProfile) {
        for seed in profile.seeds {
            let sink = CountingSink(keepsEvents: false)
            let scenario = Scenario(configuration: profile.configuration, seed: seed)
            let result = ChaosRunner().runAndEvaluate(scenario, against: GuardTarget(diagnostics: sink))
            let label = "guard, \(profile.rawValue), seed \(seed)"
            assertOracleHeld(result, label)
            assertOracleChecked(result, label)
            XCTAssertEqual(result.report.runtimeMisuses, [:], "\(label): misuse reached the runtime")
            XCTAssertGreaterThan(
                result.report.checks["observe/unobserve results linearizable", default: 0], 0,
                "\(label): no key had its results checked for linearizability")
        }
    }

    func testMixedWorkload() { runGuard(.mixed) }

    func testInitialHandlerUnobservesWhileOtherQueuesRace() {
        runGuard(.initialRace)
        // The profile must really exercise the radar 34307466 case: initial handlers that unobserve.
        let scenario = Scenario(configuration: StressProfile.initialRace.configuration, seed: 7)
        let count = scenario.operations.joined().filter { operation in
            if case .observe(_, _, _, let options, let action) = operation {
                return options.contains(.initial) && action != .none
            }
            return false
        }.count
        XCTAssertGreaterThan(count, 200, "the initial-race profile draws too few .initial observes with handler actions")
    }

    func testTeardownWhileNotificationsAreInFlight() { runGuard(.teardown) }

    func testHandlersThatReenterTheController() { runGuard(.reentrancy) }

    func testRemovalChurnAcrossQueues() {
        runGuard(.removalChurn)
        let sink = CountingSink(keepsEvents: false)
        let scenario = Scenario(configuration: StressProfile.removalChurn.configuration, seed: 11)
        let result = ChaosRunner().runAndEvaluate(scenario, against: GuardTarget(diagnostics: sink))
        assertOracleHeld(result, "guard, removal churn, seed 11")
        // The guard absorbed real mistakes (it did not simply avoid them).
        XCTAssertGreaterThan(sink.count(of: .doubleRemoval), 0)
        XCTAssertGreaterThan(sink.count(of: .removalOfUnregistered), 0)
    }

    func testWithoutInjectedFaults() {
        var configuration = StressProfile.mixed.configuration
        configuration.faults = .none
        let result = ChaosRunner().runAndEvaluate(
            Scenario(configuration: configuration, seed: 42), against: GuardTarget(diagnostics: CountingSink(keepsEvents: false)))
        assertOracleHeld(result, "guard, no faults")
        assertOracleChecked(result, "guard, no faults")
        XCTAssertEqual(result.faultsInjected, 0)
    }
}
