import FaultInjector
import GuardCore
import XCTest

/// The guard under the controlled runner: many small schedules per profile, PCT and random, each checked by the
/// full oracle; the raw runtime fails the same schedules. Run under ThreadSanitizer by `scripts/tsan.sh` (the
/// scheduler hands one worker thread to the next through its own pthread mutex and condition variables).
final class ControlledStressTests: XCTestCase {
    private func configuration(_ profile: StressProfile) -> ScenarioConfiguration {
        var configuration = profile.configuration
        configuration.workers = 4
        configuration.operationsPerWorker = 30
        configuration.objects = 3
        configuration.controllers = 3
        configuration.weakHoldingEvery = profile == .teardown ? 2 : 3
        configuration.faults = .none
        return configuration
    }

    private func runner(_ strategy: StrategyChoice) -> ControlledRunner {
        var settings = ControlledRunner.Settings()
        settings.strategy = strategy
        return ControlledRunner(settings: settings)
    }

    func testGuardPassesEveryProfileUnderPCTAndRandomSchedules() {
        for profile in StressProfile.allCases {
            for strategy in [StrategyChoice.pct(depth: 3), .random] {
                for seed in profile.seeds + [profile.seeds[0] + 100] {
                    let scenario = Scenario(configuration: configuration(profile), seed: seed)
                    let result = runner(strategy).runAndEvaluate(
                        scenario, against: GuardTarget(diagnostics: CountingSink(keepsEvents: false)))
                    let label = "guard, \(profile.rawValue), \(strategy), seed \(seed)"
                    assertOracleHeld(result, label)
                    XCTAssertEqual(result.verdict.runtimeMisuses, [:], label)
                    XCTAssertNil(result.recording.facts.stepLimitExceeded, label)
                    XCTAssertGreaterThan(result.recording.controlled?.steps ?? 0, scenario.operationCount, label)
                }
            }
        }
    }

    func testRawRuntimeFailsUnderControlledSchedules() {
        for profile in StressProfile.allCases {
            let scenario = Scenario(configuration: configuration(profile), seed: 4_000)
            let result = runner(.pct(depth: 3)).runAndEvaluate(scenario, against: RawRuntimeTarget())
            XCTAssertFalse(result.passed, "raw \(profile.rawValue) passed the oracle under the controlled runner")
            XCTAssertFalse(result.verdict.runtimeMisuses.isEmpty, "raw \(profile.rawValue): no misuse reached the runtime")
        }
    }
}
