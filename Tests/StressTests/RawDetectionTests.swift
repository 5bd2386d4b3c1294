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
        XCTAssertGreaterThan(result.verdict.runtimeMisuses[.notRegistered, default: 0], 0, result.verdict.signature)
    }

    func testTeardownReachesTheRuntimeAsDeallocationMisuse() {
        let result = runRaw(.teardown, seed: 2_002)
        XCTAssertFalse(result.passed)
        XCTAssertGreaterThan(result.verdict.runtimeMisuses[.observerDeallocated, default: 0], 0, result.verdict.signature)
        XCTAssertGreaterThan(
            result.verdict.runtimeMisuses[.deallocatedWhileObserved, default: 0], 0, result.verdict.signature)
    }

    func testInitialRaceReachesTheRuntime() {
        let result = runRaw(.initialRace, seed: 2_003)
        XCTAssertFalse(result.passed)
        // Unobserving inside the initial notification removes a registration that does not exist yet.
        XCTAssertGreaterThan(result.verdict.runtimeMisuses[.notRegistered, default: 0], 0, result.verdict.signature)
    }

    /// A middle object without the leaf key, typed key paths without a name, and weak or unowned properties: each
    /// is the `unknownKey` misuse (Foundation's `NSUnknownKeyException`) without the guard.
    func testDottedPathsTypedKeyPathsAndRefusedKeysReachTheRuntimeAsUnknownKey() {
        for profile in [StressProfile.dotted, .variants, .mixed] {
            let result = runRaw(profile, seed: 2_004)
            XCTAssertFalse(result.passed)
            XCTAssertGreaterThan(
                result.verdict.runtimeMisuses[.unknownKey, default: 0], 0, "\(profile.rawValue): \(result.verdict.signature)")
        }
    }

    func testEveryProfileFailsWithoutTheGuard() {
        for profile in StressProfile.allCases {
            let result = runRaw(profile, seed: 2_100)
            XCTAssertFalse(result.passed, "raw \(profile.rawValue) passed the oracle: the harness cannot see")
            XCTAssertFalse(result.verdict.runtimeMisuses.isEmpty, "raw \(profile.rawValue): no misuse reached the runtime")
        }
    }
}
