@testable import FaultInjector
import Foundation
import GuardCore
import XCTest

/// An object removing its own registrations in its deinit (``ScenarioConfiguration/unobservesInDeinit``): through a
/// controller that holds it weakly, its registrations are its own until its deinit ends (the backend drops them
/// later in that deinit), so the oracle holds such a removal to the answers of a live object.
final class DeinitRemovalTests: XCTestCase {
    private let guardOracle = Oracle(checksGuardSemantics: true, endsWeakRegistrationsAtObjectDeinit: true)

    private func messages(_ report: Verdict) -> String {
        report.violations.map(\.message).joined(separator: " | ")
    }

    /// A controller holding its objects weakly observes `k0` of object 300 (10–20); the object is released (30–60) and, in
    /// its deinit inside that release, removes `k0` (or, with `wholeObject`, itself) through the controller (40–45),
    /// answered `outcome`. `before` adds what else happens first.
    private func deinitRemoval(
        _ outcome: OperationRecord.Outcome, wholeObject: Bool = false, before: (inout HistoryBuilder) -> Void = { _ in }
    ) -> History {
        var builder = HistoryBuilder()
        builder.history.weakControllers.insert(HistoryBuilder.controller)
        builder.observe(.k0, at: 10, returning: 20)
        before(&builder)
        let release = builder.takeOutOfSlot(at: 30, returning: 60)
        var removal =
            wholeObject
            ? builder.unobserveObject(at: 40, returning: 45, outcome: outcome)
            : builder.unobserve(.k0, at: 40, returning: 45, outcome: outcome, parent: release.id)
        removal.parent = release.id
        removal.index = -1
        removal.inObjectDeinit = true
        let position = builder.history.operations.firstIndex { $0.id == removal.id }!
        builder.history.operations[position] = removal
        builder.history.objectDeinitTimes[HistoryBuilder.object] = 60
        return builder.history
    }

    func testARegistrationTheDeinitsRemovalCallsUnregisteredIsReported() {
        for wholeObject in [false, true] {
            let report = guardOracle.evaluate(deinitRemoval(.notRegistered, wholeObject: wholeObject), facts: RunFacts())
            XCTAssertEqual(report.violationCounts, [.nonLinearizable: 1], messages(report))
            XCTAssertTrue(messages(report).contains("no order of the calls explains"), messages(report))
            XCTAssertTrue(messages(report).contains("in the object's deinit inside #"), messages(report))
        }
    }

    func testAlreadyRemovedForALiveRegistrationIsReported() {
        let report = guardOracle.evaluate(deinitRemoval(.alreadyRemoved), facts: RunFacts())
        XCTAssertEqual(report.violationCounts, [.nonLinearizable: 1], messages(report))
    }

    func testRemovedPasses() {
        for wholeObject in [false, true] {
            let report = guardOracle.evaluate(deinitRemoval(.removed, wholeObject: wholeObject), facts: RunFacts())
            XCTAssertTrue(report.passed, messages(report))
        }
    }

    func testAfterAnUnobserveAllOverlappingTheDeinitAlreadyRemovedPasses() {
        // An unobserveAll on another worker overlapping the deinit may have removed it first.
        let history = deinitRemoval(.alreadyRemoved) { builder in
            builder.unobserveAll(at: 35, returning: 42, removed: 1, worker: 1)
        }
        let report = guardOracle.evaluate(history, facts: RunFacts())
        XCTAssertTrue(report.passed, messages(report))
    }

    func testAnOldScenarioFileReadsWithoutDeinitRemovals() throws {
        var configuration = ScenarioConfiguration()
        XCTAssertTrue(configuration.unobservesInDeinit, "new configurations remove in deinits")
        let encoded = try JSONEncoder().encode(configuration)
        var object = try XCTUnwrap(JSONSerialization.jsonObject(with: encoded) as? [String: Any])
        XCTAssertTrue(configuration.observesInDeinit, "new configurations observe in deinits")
        object["unobservesInDeinit"] = nil
        object["observesInDeinit"] = nil
        configuration = try JSONDecoder().decode(
            ScenarioConfiguration.self, from: JSONSerialization.data(withJSONObject: object))
        XCTAssertFalse(configuration.unobservesInDeinit, "a file written before it existed replays as it ran")
        XCTAssertFalse(configuration.observesInDeinit, "a file written before it existed replays as it ran")
    }

    /// The world chooses each object's deinit removal from its id alone (so a controlled run replays it), only for
    /// a system that answers such removals, and mostly through a slot that holds its objects weakly.
    func testTheDeinitActionDependsOnTheObjectsIdAndTheTarget() throws {
        let configuration = ScenarioConfiguration.controlledDefault
        let guardWorld = StressWorld(
            configuration: configuration, target: GuardTarget(diagnostics: CountingSink(keepsEvents: false)))
        let actions = (0..<64).map { guardWorld.deinitAction(ofObject: $0) }
        let secondWorld = StressWorld(
            configuration: configuration, target: GuardTarget(diagnostics: CountingSink(keepsEvents: false)))
        XCTAssertEqual(actions, (0..<64).map { secondWorld.deinitAction(ofObject: $0) }, "another world chooses alike")
        XCTAssertEqual(actions.filter { $0 == nil }.count, 0, "the quarter that removes nothing observes instead")
        for (id, action) in actions.enumerated() where id % 4 == 3 {
            guard case .observe = action else { return XCTFail("object \(id) does not observe in its deinit: \(String(describing: action))") }
        }
        let weakSlots = Set(guardWorld.controllerSlots.filter(\.holdsWeakly).map(\.index))
        XCTAssertFalse(weakSlots.isEmpty)
        for (id, action) in actions.enumerated() where id % 4 < 2 {
            switch action {
            case .unobserve(let controller, _), .unobserveObject(let controller):
                XCTAssertTrue(weakSlots.contains(controller), "object \(id): slot \(controller) is not weak")
            case .observe:
                XCTFail("object \(id) observes instead of removing")
            case nil:
                XCTFail("object \(id) removes nothing")
            }
        }
        let tokenWorld = StressWorld(
            configuration: configuration, target: TokenTarget(diagnostics: CountingSink(keepsEvents: false)))
        XCTAssertTrue((0..<64).allSatisfy { tokenWorld.deinitAction(ofObject: $0) == nil })
    }

    /// Controlled teardown runs of the guard make such removals (some of them through a weakly holding controller
    /// that still had the object registered, answered `removed`), replay them alike, and pass the oracle.
    func testControlledTeardownRunsOfTheGuardMakeDeinitRemovalsAndPass() {
        let target = GuardTarget(diagnostics: CountingSink(keepsEvents: false))
        var settings = ControlledRunner.Settings()
        settings.strategy = .pct(depth: 3)
        var removals = 0
        var observations = 0
        var removedLive = 0
        for seed: UInt64 in 1...40 {
            let scenario = Scenario(configuration: ScenarioProfile.teardown.configuration(controlled: true), seed: seed)
            let result = ControlledRunner(settings: settings).runAndEvaluate(scenario, against: target)
            let again = ControlledRunner(settings: settings).runAndEvaluate(scenario, against: target)
            XCTAssertTrue(result.verdict.passed, "seed \(seed): \(result.verdict.violations.prefix(3).map(\.message))")
            XCTAssertEqual(result.history.digest, again.history.digest, "seed \(seed): the histories differ")
            let inDeinit = result.history.operations.filter(\.inObjectDeinit)
            removals += inDeinit.filter { $0.kind != .observe }.count
            observations += inDeinit.filter { $0.kind == .observe }.count
            XCTAssertTrue(
                inDeinit.filter { $0.kind == .observe }.allSatisfy { $0.outcome == .invalid }, "seed \(seed): accepted in deinit")
            removedLive += inDeinit.filter { $0.outcome == .removed }.count
            XCTAssertTrue(inDeinit.allSatisfy { $0.parent >= 0 && $0.index == -1 }, "nested in the releasing operation")
        }
        XCTAssertGreaterThan(removals, 0, "no object removed anything in its deinit")
        XCTAssertGreaterThan(observations, 0, "no object asked to be observed in its deinit")
        XCTAssertGreaterThan(removedLive, 0, "no deinit removal found its object still registered")
    }
}
