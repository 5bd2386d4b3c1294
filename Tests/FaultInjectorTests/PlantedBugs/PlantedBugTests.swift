@testable import FaultInjector
import FaultInjectorTestSupport
import Foundation
import GuardCore
import XCTest

/// The planted bugs prove the harness can see: the unmodified baseline keeps the oracle, every planted bug is caught
/// by the controlled runner within a few fixed seeds with the oracle check its documentation names, and the guard
/// passes each bug's scenario.
final class PlantedBugTests: XCTestCase {
    /// Fixed seeds; the first failing one is the bug's detection.
    private static let seeds: [UInt64] = Array(1...20)

    /// The seeds a bug's detection is looked for in: more for the two `.initial` races on `gauge`, which need one of
    /// PCT's two change points to fall in a short window of an observe (between its read and its add, or its add and
    /// its initial notification), about one run in fifteen.
    private static func seeds(for bug: PlantedBug) -> [UInt64] {
        bug == .changeBeforeInitial || bug == .initialReadEarly ? Array(1...100) : seeds
    }

    private func controlledRun(_ bug: PlantedBug?, seed: UInt64) -> RunResult {
        let configuration = bug?.configuration(controlled: true) ?? PlantedBug.commonConfiguration(controlled: true)
        return ControlledRunner().runAndEvaluate(
            Scenario(configuration: configuration, seed: seed), against: PlantedBugTarget(bug))
    }

    func testEveryPlantedBugIsCaughtByTheControlledRunnerWithTheCheckItsDocumentationNames() {
        for bug in PlantedBug.allCases {
            let failing = Self.seeds(for: bug).lazy.map { self.controlledRun(bug, seed: $0) }.first { !$0.passed }
            guard let failing else {
                XCTFail("\(bug.rawValue): \(Self.seeds(for: bug).count) seeds never caught it")
                continue
            }
            let fired = Set(failing.verdict.violationCounts.keys)
            XCTAssertFalse(
                fired.isDisjoint(with: bug.expectedKinds),
                "\(bug.rawValue) fired \(failing.verdict.signature), expected one of \(bug.expectedKinds.map(\.rawValue).sorted())")
        }
    }

    func testEachPlantedBugFiresItsOwnCheck() throws {
        let expected: [PlantedBug: Violation.Kind] = [
            .dedupRemoved: .nonLinearizable, .unregisteredRemovalForwarded: .runtimeMisuse, .handlerUnderLock: .deadlock,
            .initialStateMissing: .runtimeMisuse, .deliveryCheckRemoved: .deliveryOutsideRegistration,
            .notifyLiveStorage: .duplicateDelivery, .weakObjectsNotDropped: .runtimeMisuse,
            .descriptionSingleton: .nonLinearizable, .earlyReturnKeepsLock: .deadlock, .lockMissing: .nonLinearizable,
            .initialReadEarly: .missingDelivery, .changeBeforeInitial: .changeBeforeInitial,
        ]
        XCTAssertEqual(Set(expected.keys), Set(PlantedBug.allCases))
        for (bug, kind) in expected.sorted(by: { $0.key.rawValue < $1.key.rawValue }) {
            let caught = Self.seeds(for: bug).lazy.map { self.controlledRun(bug, seed: $0) }
                .first { $0.verdict.violationCounts[kind] != nil }
            XCTAssertNotNil(caught, "\(bug.rawValue): no seed fired \(kind.rawValue)")
        }
        let misuses: [PlantedBug: KVOMisuse.Kind] = [
            .unregisteredRemovalForwarded: .notRegistered, .initialStateMissing: .notRegistered,
            .weakObjectsNotDropped: .deallocatedWhileObserved,
        ]
        for (bug, misuse) in misuses.sorted(by: { $0.key.rawValue < $1.key.rawValue }) {
            let caught = Self.seeds.lazy.map { self.controlledRun(bug, seed: $0) }.first { $0.verdict.runtimeMisuses[misuse] != nil }
            XCTAssertNotNil(caught, "\(bug.rawValue): no seed made the runtime see \(misuse)")
        }
    }

    func testTheUnmodifiedBaselineKeepsTheOracleOnEveryPlantedScenario() {
        let configurations = [PlantedBug.commonConfiguration(controlled: true)]
            + [PlantedBug.initialStateMissing, .weakObjectsNotDropped, .initialReadEarly].map {
                $0.configuration(controlled: true)
            }
        for (index, configuration) in configurations.enumerated() {
            for seed in Self.seeds {
                let result = ControlledRunner().runAndEvaluate(
                    Scenario(configuration: configuration, seed: seed), against: PlantedBugTarget(nil))
                XCTAssertTrue(result.passed, "baseline, configuration \(index), seed \(seed): \(result.verdict.signature)")
                XCTAssertGreaterThan(result.verdict.totalChecks, 0)
            }
        }
    }

    /// `bug-initial-read-early` is seen by the loss rule of raced initial values: on its scenario the unmodified
    /// baseline is held to that rule (and keeps it, above), while the bug's first failing seed breaks it.
    func testTheInitialReadEarlyScenarioHoldsTheBaselineToTheLossRuleTheBugBreaks() throws {
        let configuration = PlantedBug.initialReadEarly.configuration(controlled: true)
        let lossChecks = Self.seeds.map { seed -> Int in
            let result = ControlledRunner().runAndEvaluate(
                Scenario(configuration: configuration, seed: seed), against: PlantedBugTarget(nil))
            return result.verdict.checks[InitialValueChecks.lossRule] ?? 0
        }.reduce(0, +)
        XCTAssertGreaterThan(lossChecks, 0)
        let failing = try XCTUnwrap(
            Self.seeds(for: .initialReadEarly).lazy.map { self.controlledRun(.initialReadEarly, seed: $0) }
                .first { !$0.passed })
        XCTAssertNotNil(failing.verdict.violationCounts[.missingDelivery], failing.verdict.signature)
        // The value it lost is the one the handler should have ended on.
        XCTAssertTrue(
            Set(failing.verdict.violationCounts.keys).isSubset(of: [.missingDelivery, .staleLastValue]),
            failing.verdict.signature)
        XCTAssertTrue(
            failing.verdict.violations.contains { $0.message.hasPrefix(InitialValueChecks.lossRule) },
            "\(failing.verdict.violations)")
    }

    /// `bug-change-before-initial` is seen by the initial-first rules: on its scenario the unmodified baseline (which
    /// holds a racing change back until the initial notification) is held to both rules and keeps them, while the
    /// bug's first failing seed breaks the order.
    func testTheChangeBeforeInitialScenarioHoldsTheBaselineToTheRulesTheBugBreaks() throws {
        let configuration = PlantedBug.changeBeforeInitial.configuration(controlled: true)
        var orderChecks = 0
        var lastValueChecks = 0
        for seed in Self.seeds {
            let result = ControlledRunner().runAndEvaluate(
                Scenario(configuration: configuration, seed: seed), against: PlantedBugTarget(nil))
            XCTAssertTrue(result.passed, "baseline, seed \(seed): \(result.verdict.signature)")
            orderChecks += result.verdict.checks[InitialFirstChecks.orderRule] ?? 0
            lastValueChecks += result.verdict.checks[InitialFirstChecks.lastValueRule] ?? 0
        }
        XCTAssertGreaterThan(orderChecks, 0)
        XCTAssertGreaterThan(lastValueChecks, 0)
        let failing = try XCTUnwrap(
            Self.seeds(for: .changeBeforeInitial).lazy.map { self.controlledRun(.changeBeforeInitial, seed: $0) }
                .first { !$0.passed })
        XCTAssertNotNil(failing.verdict.violationCounts[.changeBeforeInitial], failing.verdict.signature)
        XCTAssertTrue(
            Set(failing.verdict.violationCounts.keys).isSubset(of: PlantedBug.changeBeforeInitial.expectedKinds),
            failing.verdict.signature)
        XCTAssertTrue(
            failing.verdict.violations.contains { $0.message.hasPrefix(InitialFirstChecks.orderRule) },
            "\(failing.verdict.violations)")
    }

    /// The chaos runner catches `bug-change-before-initial` too, on the short chaos round its scenario makes (16
    /// queues, injected pauses), while the baseline keeps the oracle there.
    func testTheChaosRunnerCatchesAChangeDeliveredBeforeTheInitialNotification() {
        let configuration = PlantedBug.changeBeforeInitial.configuration(controlled: false)
        let caught = (1...8 as ClosedRange<UInt64>).lazy.map { seed in
            ChaosRunner().runAndEvaluate(
                Scenario(configuration: configuration, seed: seed), against: PlantedBugTarget(.changeBeforeInitial))
        }.first { $0.verdict.violationCounts[.changeBeforeInitial] != nil }
        XCTAssertNotNil(caught, "8 chaos rounds never saw a change before its initial notification")
        for seed in 1...2 as ClosedRange<UInt64> {
            let baseline = ChaosRunner().runAndEvaluate(
                Scenario(configuration: configuration, seed: seed), against: PlantedBugTarget(nil))
            XCTAssertTrue(baseline.passed, "baseline, chaos seed \(seed): \(baseline.verdict.signature)")
        }
    }

    func testTheGuardPassesEveryPlantedBugsScenario() {
        for bug in PlantedBug.allCases {
            for seed in Self.seeds.prefix(3) {
                let result = ControlledRunner().runAndEvaluate(
                    Scenario(configuration: bug.configuration(controlled: true), seed: seed),
                    against: GuardTarget(diagnostics: CountingSink(keepsEvents: false)))
                XCTAssertTrue(result.passed, "guard on \(bug.rawValue)'s scenario, seed \(seed): \(result.verdict.signature)")
            }
        }
    }

    func testPlantedBugsAreNamedByTheCatalogButNotListedAmongTheTargets() throws {
        XCTAssertEqual(TargetCatalog.plantedBugNames.count, 12)
        for name in TargetCatalog.plantedBugNames {
            XCTAssertTrue(name.hasPrefix("bug-"), name)
            XCTAssertFalse(TargetCatalog.names.contains(name), name)
            XCTAssertTrue(TargetCatalog.knownNames.contains(name), name)
            let target = try XCTUnwrap(TargetCatalog.make(name, diagnostics: CountingSink(keepsEvents: false)), name)
            XCTAssertEqual(target.name, name)
            XCTAssertTrue(target.promisesGuardSemantics)
        }
        XCTAssertEqual(TargetCatalog.make(PlantedBug.baselineName, diagnostics: CountingSink(keepsEvents: false))?.name, "planted-baseline")
        XCTAssertNil(TargetCatalog.make("bug-nonexistent", diagnostics: CountingSink(keepsEvents: false)))
    }

    /// The bar: a controlled seed file of every planted bug reproduces its failure 100 times out of 100, every
    /// run following the recorded schedule. A file whose failure is a deadlock replays in a child process (a
    /// deadlocked run leaves its workers blocked for good), the others in this one.
    func testAControlledSeedFileOfEveryPlantedBugReproducesItsFailureOneHundredTimesOutOfOneHundred() throws {
        let runs = 100
        let childProcesses = ChildProcessSettings(
            executable: try GuardStressProcess.executable().path, arguments: ["__serve-rounds"])
        for bug in PlantedBug.allCases {
            let failing = try XCTUnwrap(
                Self.seeds(for: bug).lazy.map { self.controlledRun(bug, seed: $0) }.first { !$0.passed }, bug.rawValue)
            let file = SeedFile(result: failing, toolVersion: ToolVersion.current)
            let deadlocks = file.failure.signature.contains("deadlock")
            if bug == .earlyReturnKeepsLock { XCTAssertTrue(deadlocks, "\(bug.rawValue): \(file.failure.signature)") }
            let replayer = try Replayer(file: file)
            let outcome = deadlocks ? try replayer.replay(runs: runs, isolatedBy: childProcesses) : try replayer.replay(runs: runs)
            XCTAssertEqual(outcome.violatedRuns, runs, "\(bug.rawValue): \(Set(outcome.signatures))")
            XCTAssertEqual(outcome.sameSignatureRuns, runs, "\(bug.rawValue): \(Set(outcome.signatures)) vs \(file.failure.signature)")
            XCTAssertEqual(outcome.exactRuns, runs, "\(bug.rawValue): \(outcome.mismatches.prefix(3))")
        }
    }
}
