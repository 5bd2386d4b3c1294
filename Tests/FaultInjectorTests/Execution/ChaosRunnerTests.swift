@testable import FaultInjector
import FaultInjectorTestSupport
import GuardCore
import XCTest

/// End-to-end runs at small size. Runs use the process-wide misuse counters; XCTest runs tests one at a time.
final class ChaosRunnerTests: XCTestCase {
    private func describe(_ result: RunResult) -> String {
        "signature \(result.verdict.signature): " + result.verdict.violations.prefix(3).map(\.message).joined(separator: " | ")
    }

    func testGuardPassesTheOracleAcrossSeeds() {
        // The once-per-process warm-up runs the raw runtime too (its misuses are expected): let it happen before the
        // baseline is taken, so the test holds when it runs first or alone.
        RunEnvironment.exclusively { RuntimeWarmUp.ensure() }
        for seed: UInt64 in [1, 2, 3, 0xDEAD_BEEF] {
            let diagnostics = CountingSink(keepsEvents: false)
            let scenario = Scenario(configuration: RunFixtures.configuration(workers: 12, operations: 150), seed: seed)
            let misusesBefore = RuntimeMonitor.misuseCount
            let result = ChaosRunner().runAndEvaluate(scenario, against: GuardTarget(diagnostics: diagnostics))
            XCTAssertTrue(result.passed, "seed \(seed): \(describe(result))")
            XCTAssertEqual(result.verdict.runtimeMisuses, [:], "seed \(seed)")
            XCTAssertEqual(RuntimeMonitor.misuseCount, misusesBefore, "seed \(seed): misuse reached the runtime")
            XCTAssertFalse(result.verdict.abandoned)
            XCTAssertEqual(result.targetName, "guard")
            XCTAssertGreaterThanOrEqual(result.verdict.operations, 12 * 150, "double unobserves and handler actions add records")
            XCTAssertGreaterThan(result.verdict.deliveries, 0)
            XCTAssertGreaterThan(result.verdict.totalChecks, 1_000)
            XCTAssertGreaterThan(result.verdict.checks["observe/unobserve results linearizable"] ?? 0, 0)
            // The scenario's removals of what was never observed were absorbed by the guard, not the runtime.
            XCTAssertGreaterThan(diagnostics.count(of: .removalOfUnregistered), 0, "seed \(seed)")
        }
    }

    func testRawRuntimeFailsTheSameScenarioWithNotRegistered() {
        let raw = RunFixtures.rawFailure
        XCTAssertFalse(raw.passed)
        XCTAssertEqual(raw.targetName, "raw")
        XCTAssertGreaterThan(raw.verdict.violationCounts[.runtimeMisuse] ?? 0, 0)
        XCTAssertGreaterThan(raw.verdict.runtimeMisuses[.notRegistered] ?? 0, 0, describe(raw))
        XCTAssertTrue(raw.verdict.signature.contains("runtime-misuse("), raw.verdict.signature)
        XCTAssertTrue(raw.verdict.signature.contains("notRegistered"), raw.verdict.signature)
        XCTAssertNil(raw.verdict.checks["observe/unobserve results linearizable"], "raw KVO gives no results to check")

        let guarded = RunFixtures.guardPass
        XCTAssertEqual(guarded.scenario, raw.scenario)
        XCTAssertTrue(guarded.passed, describe(guarded))
    }

    func testRunRestoresTheMisusePolicy() {
        let before = RuntimeMonitor.misusePolicy
        _ = RunFixtures.rawFailure
        XCTAssertEqual(RuntimeMonitor.misusePolicy, before)
        let result = RuntimeMonitor.withMisusePolicy(.log) {
            let result = ChaosRunner().runAndEvaluate(
                Scenario(configuration: RunFixtures.configuration(workers: 2, operations: 20), seed: 1), against: RawRuntimeTarget())
            XCTAssertEqual(RuntimeMonitor.misusePolicy, .log)
            return result
        }
        XCTAssertFalse(result.verdict.abandoned)
        XCTAssertEqual(RuntimeMonitor.misusePolicy, before)
    }

    func testGuardPassesWithoutFaults() {
        var configuration = RunFixtures.configuration(workers: 16, operations: 150)
        configuration.faults = .none
        XCTAssertFalse(configuration.faults.isEnabled)
        let result = ChaosRunner().runAndEvaluate(
            Scenario(configuration: configuration, seed: 77), against: GuardTarget(diagnostics: CountingSink(keepsEvents: false)))
        XCTAssertTrue(result.passed, describe(result))
        XCTAssertEqual(result.verdict.faultsInjected, 0)
        XCTAssertEqual(result.verdict.runtimeMisuses, [:])
    }

    func testFaultsAreInjectedWhenEnabled() {
        XCTAssertGreaterThan(RunFixtures.guardPass.verdict.faultsInjected, 0)
    }

    func testHistoryRecordsEveryScheduledOperation() {
        let result = RunFixtures.guardPass
        let scheduled = result.history.operations.filter { $0.index >= 0 }
        // One record per operation, two for a double unobserve.
        let expected = result.scenario.operations.joined().reduce(0) { count, operation in
            if case .doubleUnobserve = operation { return count + 2 }
            return count + 1
        }
        XCTAssertEqual(scheduled.count, expected)
        for worker in 0..<result.scenario.configuration.workers {
            let indexes = scheduled.filter { $0.worker == worker }.map(\.index)
            XCTAssertEqual(Set(indexes), Set(0..<result.scenario.operations[worker].count), "worker \(worker)")
        }
        XCTAssertTrue(zip(result.history.operations, result.history.operations.dropFirst()).allSatisfy { $0.call <= $1.call })
        XCTAssertTrue(result.history.operations.allSatisfy { $0.call <= $0.ret })
        XCTAssertEqual(result.history.deliveries.count, result.verdict.deliveries)
    }
}
