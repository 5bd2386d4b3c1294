@testable import FaultInjector
import Foundation
import GuardCore
import XCTest

/// Promises of the guard that no check or scenario reached before: a variation of the shipped guard that breaks
/// each one (``PlantedGuardVariation``, planted at the guard's edge in the tests) is caught by the default campaign's
/// settings, by the check that guards the promise, and the unmodified guard passes the same rounds.
final class BlindSpotTests: XCTestCase {
    /// Runs a short in-process campaign of the default profile against `target` with `runner`, until its first
    /// failure or `rounds` rounds.
    private func campaign(_ target: String, runner: RunnerChoice, rounds: Int, seed: UInt64) throws -> CampaignSummary {
        var settings = Campaign.Settings()
        settings.target = target
        settings.makeTarget = PlantedGuardVariation.factory
        settings.runner = runner
        settings.seed = seed
        settings.scenario = ScenarioProfile.mixed.configuration(controlled: runner != .chaos)
        if runner == .chaos {
            settings.scenario.workers = 16
            settings.scenario.operationsPerWorker = 400
        }
        settings.operationBudget = rounds * settings.scenario.workers * settings.scenario.operationsPerWorker
        settings.duration = 60
        settings.stopAtFirstFailure = true
        settings.writesSeedFileBeforeEachRound = false
        settings.maximumSeedFiles = 0
        settings.outputDirectory = NSTemporaryDirectory() + "fi-blind-spots-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: settings.outputDirectory) }
        return try Campaign(settings: settings).run()
    }

    private func kinds(_ summary: CampaignSummary) -> Set<Violation.Kind> {
        Set(summary.verdict.violationCounts.keys)
    }

    /// Both runners catch the variation with one of `expected` (and, where `only`, the controlled runner with nothing
    /// else: no earlier check saw it; a chaos round that breaks the promise may also break others, as timing falls),
    /// and the unmodified guard passes the same rounds.
    private func assertCaught(
        _ variation: PlantedGuardVariation.Variation, by expected: Set<Violation.Kind>, only: Bool,
        file: StaticString = #filePath, line: UInt = #line
    ) throws -> [CampaignSummary] {
        var caught: [CampaignSummary] = []
        for runner in [RunnerChoice.controlled(ControlledRunner.Settings()), .chaos] {
            let planted = try campaign("planted-\(variation.rawValue)", runner: runner, rounds: runner == .chaos ? 30 : 400, seed: 3)
            XCTAssertFalse(kinds(planted).isDisjoint(with: expected), "\(runner.name): \(kinds(planted))", file: file, line: line)
            if only, runner != .chaos {
                XCTAssertEqual(kinds(planted), expected, "\(runner.name): \(planted.verdict.violations)", file: file, line: line)
            }
            let unmodified = try campaign("guard", runner: runner, rounds: max(1, planted.rounds), seed: 3)
            XCTAssertTrue(unmodified.passed, "\(runner.name): \(unmodified.verdict.violations)", file: file, line: line)
            caught.append(planted)
        }
        return caught
    }

    #if os(Linux)
    /// A lock whose release forgets to wake a thread asleep on it: the controlled campaign of CI.md's recipe reports the
    /// waiter that nothing wakes as a deadlock at once (it held waiting workers back and let any release free them
    /// before, so only a chaos campaign of a release build saw it), and the same lock with its wake passes the same
    /// rounds.
    func testALockReleaseThatForgetsToWakeItsWaiterIsCaughtByTheControlledRunner() throws {
        let runner = RunnerChoice.controlled(ControlledRunner.Settings())
        let planted = try campaign("planted-lost-wake-up", runner: runner, rounds: 400, seed: 3)
        XCTAssertEqual(kinds(planted), [.deadlock], "\(planted.verdict.violations)")
        let messages = planted.verdict.violations.map(\.message)
        XCTAssertTrue(
            messages.contains { $0.contains("without waking the threads asleep on it (a lost wake-up)") }, "\(messages)")
        let waking = try campaign("word-locked-guard", runner: runner, rounds: 400, seed: 3)
        XCTAssertTrue(waking.passed, "\(waking.verdict.violations)")
        XCTAssertGreaterThan(waking.rounds, planted.rounds, "the waking lock ran more rounds than the planted one needed")
    }
    #endif

    /// A bulk removal releasing its registrations newest first: only the release-order check sees it.
    func testABulkRemovalThatReleasesNewestFirstIsCaught() throws {
        _ = try assertCaught(.reversedBulkRelease, by: [.releaseOrder], only: true)
    }

    /// A registration that joined a change under way getting the prior notification after the change: the prior-order
    /// check sees it for late joiners too (it skipped them before), and nothing else does.
    func testALateJoinerHearingThePriorAfterTheChangeIsCaught() throws {
        for summary in try assertCaught(.latePriorAfterChange, by: [.priorOrder], only: true) {
            let messages = summary.verdict.violations.filter { $0.kind == .priorOrder }.map(\.message)
            XCTAssertTrue(messages.contains { $0.contains("after the change (it joined the change under way)") }, "\(messages)")
        }
    }

    /// Keys compared as Swift strings (and long ones by a prefix): the default scenario now draws canonically
    /// equivalent spellings and long keys with a common beginning, and the results and notifications give it away.
    func testKeysComparedAsStringsAreCaught() throws {
        let keys = ScenarioConfiguration().keys
        XCTAssertTrue(StressKey.spelledApart.allSatisfy(keys.contains), "the default scenario draws the keys spelled apart")
        XCTAssertTrue(StressKey.composedCafe.name == StressKey.decomposedCafe.name, "one word to Swift's ==")
        XCTAssertFalse(StressKey.composedCafe.name.utf8.elementsEqual(StressKey.decomposedCafe.name.utf8))
        XCTAssertEqual(
            Array(StressKey.longKeyOne.name.utf8.prefix(70)), Array(StressKey.longKeyTwo.name.utf8.prefix(70)))
        let caughtBy: Set<Violation.Kind> = [.nonLinearizable, .misroutedDelivery, .unexpectedDelivery, .missingDelivery]
        for summary in try assertCaught(.keysComparedAsStrings, by: caughtBy, only: false) {
            let names = StressKey.spelledApart.map(\.name)
            XCTAssertTrue(
                summary.verdict.violations.contains { violation in names.contains { violation.message.contains($0) } },
                "a violation names a key spelled apart: \(summary.verdict.violations)")
        }
    }

    /// `values(of:bufferingNewest:)` keeping more values than its limit (the limit forgotten: eight times as many
    /// wait): the default chaos scenario's value-sequence consumers see it, and see nothing wrong with the real one.
    func testAValueSequenceThatKeepsMoreThanItsLimitIsCaught() throws {
        var configuration = ScenarioProfile.mixed.configuration()
        configuration.workers = 16
        configuration.operationsPerWorker = 1_000
        configuration.streams = 12
        var planted = ChaosRunner()
        planted.valueSource = ValueSource { object, key, limit in
            key == .k1
                ? ValueIterator(object.values(of: \.k1, bufferingNewest: limit * 8).makeAsyncIterator())
                : ValueIterator(object.values(of: \.k0, bufferingNewest: limit * 8).makeAsyncIterator())
        }
        var caught = false
        for seed in UInt64(1)...6 where !caught {
            let scenario = Scenario(configuration: configuration, seed: seed)
            let result = planted.runAndEvaluate(scenario, against: GuardTarget(diagnostics: CountingSink(keepsEvents: false)))
            let messages = result.verdict.violations.filter { $0.kind == .valueStream }.map(\.message)
            XCTAssertTrue(messages.allSatisfy { $0.contains("that may wait") || $0.contains("fewer than") }, "\(messages)")
            caught = !messages.isEmpty
            let unmodified = ChaosRunner().runAndEvaluate(scenario, against: GuardTarget(diagnostics: CountingSink(keepsEvents: false)))
            XCTAssertTrue(unmodified.passed, "\(unmodified.verdict.violations)")
            XCTAssertGreaterThan(unmodified.verdict.checks["a value sequence's values checked"] ?? 0, 0)
        }
        XCTAssertTrue(caught, "a sequence holding more than its limit went unnoticed")
    }

    /// The token API losing the `.prior` option on its way to the guard: the token campaign CI.md runs catches it
    /// (the default campaign, on the controller API, never makes a token).
    func testATokenThatLosesItsPriorOptionIsCaughtByTheTokenCampaign() throws {
        var settings = Campaign.Settings()
        settings.target = "token"
        settings.makeTarget = { name, diagnostics in
            guard name == "token" else { return TargetCatalog.make(name, diagnostics: diagnostics) }
            return TokenTarget(diagnostics: diagnostics) { object, keyPath, options, handler in
                object.guardedObserve(keyPath: keyPath, options: options.subtracting(.prior), changeHandler: handler)
            }
        }
        settings.runner = .controlled(ControlledRunner.Settings())
        settings.scenario = ScenarioProfile.mixed.configuration(controlled: true)
        settings.seed = 5
        settings.operationBudget = 300 * settings.scenario.workers * settings.scenario.operationsPerWorker
        settings.stopAtFirstFailure = true
        settings.writesSeedFileBeforeEachRound = false
        settings.maximumSeedFiles = 0
        settings.outputDirectory = NSTemporaryDirectory() + "fi-blind-token-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: settings.outputDirectory) }
        let summary = try Campaign(settings: settings).run()
        XCTAssertEqual(Set(summary.verdict.violationCounts.keys), [.priorOrder], "\(summary.verdict.violations)")
        var unmodified = settings
        unmodified.makeTarget = TargetCatalog.make
        unmodified.operationBudget = summary.rounds * settings.scenario.workers * settings.scenario.operationsPerWorker
        XCTAssertTrue(try Campaign(settings: unmodified).run().passed)
    }

    /// The stress object's stored keys spelled apart are distinct properties, named as the keys are.
    func testTheKeysSpelledApartAreDistinctPropertiesOfTheStressObject() {
        let object = StressObject(id: 1)
        for (offset, key) in StressKey.spelledApart.enumerated() { object.set(key, to: 10 + offset) }
        XCTAssertEqual(StressKey.spelledApart.map(object.value(of:)), [10, 11, 12, 13])
        for key in StressKey.spelledApart {
            XCTAssertEqual(object.value(forKey: key.name) as? Int, object.value(of: key), key.name)
            XCTAssertEqual(StressKey(name: key.name), key)
        }
        XCTAssertNil(StressKey(name: "cafe"))
    }
}
