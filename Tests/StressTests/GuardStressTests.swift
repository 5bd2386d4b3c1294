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
            XCTAssertEqual(result.verdict.runtimeMisuses, [:], "\(label): misuse reached the runtime")
            XCTAssertGreaterThan(
                result.verdict.checks["observe/unobserve results linearizable", default: 0], 0,
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

    func testDottedKeyPathsWhoseMiddleObjectChanges() {
        runGuard(.dotted)
        let scenario = Scenario(configuration: StressProfile.dotted.configuration, seed: 13)
        let result = ChaosRunner().runAndEvaluate(scenario, against: GuardTarget(diagnostics: CountingSink(keepsEvents: false)))
        assertOracleHeld(result, "guard, dotted, seed 13")
        let strangers = result.history.operations.filter { $0.kind == .link && $0.newLeaf == StressValue.nilValue && $0.newValue != StressValue.nilValue }
        XCTAssertGreaterThan(strangers.count, 20, "links to objects without the leaf key")
        XCTAssertTrue(result.history.diagnostics.contains { $0.kind == .keyPathUnavailable }, "broken chains were reported")
        XCTAssertGreaterThan(result.verdict.checks["a broken chain is reported once per re-wiring", default: 0], 0)
    }

    /// The dotted-leaf profile reaches what the dotted one cannot: links that overlap a set of the leaf (`gauge`, set
    /// without the lock a link takes) on their old or new middle object, so forwarders are detached while they relay a
    /// prior notification, and links that put a middle object back while its leaf is set. Every prior notification is
    /// followed by its change, each change is delivered once, every other rule holds, and no misuse reaches the
    /// runtime.
    func testLinksOverlappingSetsOfTheLeafOnTheirMiddleObjects() {
        var overlapping = 0
        for seed in StressProfile.dottedLeaf.seeds {
            let scenario = Scenario(configuration: StressProfile.dottedLeaf.configuration, seed: seed)
            let result = ChaosRunner().runAndEvaluate(
                scenario, against: GuardTarget(diagnostics: CountingSink(keepsEvents: false)))
            let label = "guard, dotted-leaf, seed \(seed)"
            XCTAssertEqual(
                result.verdict.violationCounts, [:], "\(label): \(result.verdict.violations.prefix(3).map(\.message))")
            XCTAssertGreaterThan(result.verdict.checks["one notification per change and registration", default: 0], 0, label)
            XCTAssertEqual(result.verdict.runtimeMisuses, [:], "\(label): misuse reached the runtime")
            let gaugeSets = result.history.operations.filter { $0.kind == .mutate && $0.key == .gauge && $0.outcome != .skipped }
            let links = result.history.operations.filter { $0.kind == .link && $0.outcome != .skipped }
            overlapping += links.filter { link in
                gaugeSets.contains { set in
                    (set.object == link.oldValue || set.object == link.newValue) && set.call < link.ret && set.ret > link.call
                }
            }.count
        }
        XCTAssertGreaterThan(overlapping, 0, "no link overlapped a set of gauge on its old or new middle object")
    }

    func testManualAndToManyNotifications() {
        runGuard(.manual)
        let scenario = Scenario(configuration: StressProfile.manual.configuration, seed: 14)
        let result = ChaosRunner().runAndEvaluate(scenario, against: GuardTarget(diagnostics: CountingSink(keepsEvents: false)))
        assertOracleHeld(result, "guard, manual, seed 14")
        let kinds = Set(result.history.deliveries.map(\.kind))
        XCTAssertEqual(kinds, [1, 2, 3, 4], "settings, insertions, removals and replacements were delivered")
        let nested = result.history.operations.filter { $0.kind == .changeItems && $0.parent >= 0 }
        XCTAssertGreaterThan(nested.count, 10, "to-many changes nested inside a manual change")
    }

    func testContextsTypedKeyPathsAndRefusedKeys() {
        runGuard(.variants)
        let scenario = Scenario(configuration: StressProfile.variants.configuration, seed: 15)
        let result = ChaosRunner().runAndEvaluate(scenario, against: GuardTarget(diagnostics: CountingSink(keepsEvents: false)))
        assertOracleHeld(result, "guard, variants, seed 15")
        let invalid = result.history.operations.filter { $0.kind == .observe && $0.outcome == .invalid }
        XCTAssertTrue(invalid.contains { $0.typedKey == .sum }, "typed key paths without a name were refused")
        let registered = result.history.operations.filter { $0.kind == .observe && $0.outcome == .registered }
        XCTAssertTrue(
            registered.contains { $0.typedKey == .peerForced },
            "a force unwrap through the nil peer was registered as peer.k0, never evaluated")
        XCTAssertTrue(registered.contains { $0.key == .delegate }, "weak properties were observed")
        XCTAssertTrue(invalid.contains { $0.key == .owner }, "unowned(unsafe) properties were refused")
        let forwarded = Set(result.history.deliveries.map(\.registration))
        XCTAssertTrue(
            result.history.operations.contains { $0.kind == .observe && $0.context != 0 && forwarded.contains($0.id) },
            "notifications went through the observer's own observeValue")
    }

    /// Controllers that live the whole round see hundreds of objects: their registration tables and removal histories
    /// grow and are swept while the oracle checks every result, count and query.
    func testLongLivedControllersOverManyObjects() {
        runGuard(.longLived)
        let scenario = Scenario(configuration: StressProfile.longLived.configuration, seed: 16)
        let result = ChaosRunner().runAndEvaluate(scenario, against: GuardTarget(diagnostics: CountingSink(keepsEvents: false)))
        assertOracleHeld(result, "guard, long-lived, seed 16")
        var objectsPerController: [Int: Set<Int>] = [:]
        for record in result.history.operations where record.kind == .observe && record.outcome == .registered {
            objectsPerController[record.controller, default: []].insert(record.object)
        }
        XCTAssertEqual(objectsPerController.count, StressProfile.longLived.configuration.controllers, "controllers were never replaced")
        for (controller, objects) in objectsPerController {
            XCTAssertGreaterThan(objects.count, 300, "controller \(controller) saw few objects")
        }
        XCTAssertGreaterThan(result.verdict.checks["registration counts within what was surely and possibly registered", default: 0], 100)
    }

    func testWithoutInjectedFaults() {
        var configuration = StressProfile.mixed.configuration
        configuration.faults = .none
        let result = ChaosRunner().runAndEvaluate(
            Scenario(configuration: configuration, seed: 42), against: GuardTarget(diagnostics: CountingSink(keepsEvents: false)))
        assertOracleHeld(result, "guard, no faults")
        assertOracleChecked(result, "guard, no faults")
        XCTAssertEqual(result.verdict.faultsInjected, 0)
    }
}
