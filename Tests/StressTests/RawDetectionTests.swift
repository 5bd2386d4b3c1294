import FaultInjector
import GuardCore
import XCTest

/// The harness must be able to see: the same scenarios against the raw runtime (no guard) must fail the oracle,
/// with the misuse each profile provokes.
final class RawDetectionTests: XCTestCase {
    private func runRaw(_ profile: StressProfile, seed: UInt64) -> RunResult {
        ChaosRunner().runAndEvaluate(Scenario(configuration: profile.configuration, seed: seed), against: RawRuntimeTarget())
    }

    func testRemovalChurnReachesTheRuntimeAsNotRegistered() {
        let result = runRaw(.removalChurn, seed: 2_001)
        XCTAssertFalse(result.passed)
        XCTAssertGreaterThan(result.report.runtimeMisuses[.notRegistered, default: 0], 0, result.report.signature)
    }

    func testTeardownReachesTheRuntimeAsDeallocationMisuse() {
        let result = runRaw(.teardown, seed: 2_002)
        XCTAssertFalse(result.passed)
        XCTAssertGreaterThan(result.report.runtimeMisuses[.observerDeallocated, default: 0], 0, result.report.signature)
        XCTAssertGreaterThan(
            result.report.runtimeMisuses[.deallocatedWhileObserved, default: 0], 0, result.report.signature)
    }

    func testInitialRaceReachesTheRuntime() {
        let result = runRaw(.initialRace, seed: 2_003)
        XCTAssertFalse(result.passed)
        // Unobserving inside the initial notification removes a registration that does not exist yet.
        XCTAssertGreaterThan(result.report.runtimeMisuses[.notRegistered, default: 0], 0, result.report.signature)
    }

    func testEveryProfileFailsWithoutTheGuard() {
        for profile in StressProfile.allCases {
            let result = runRaw(profile, seed: 2_100)
            XCTAssertFalse(result.passed, "raw \(profile.rawValue) passed the oracle: the harness cannot see")
            XCTAssertFalse(result.report.runtimeMisuses.isEmpty, "raw \(profile.rawValue): no misuse reached the runtime")
        }
    }
}
