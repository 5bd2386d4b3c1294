@testable import FaultInjector
import FaultInjectorTestSupport
@testable import FaultInjectorTools
import GuardCore
import XCTest

/// The pieces the shrinker is made of: operation texts, scenario edits, and guided schedules.
final class ShrinkingPiecesTests: XCTestCase {
    // MARK: Operation texts

    func testTheTextViewFindsSlotsAndKeysWithoutKnowingTheOperationKind() {
        let text = OperationText("observe c3 o1 sum [initial,new] then mutate o2 k1")
        XCTAssertEqual(text.slots("c"), [3])
        XCTAssertEqual(text.slots("o"), [1, 2])
        XCTAssertEqual(text.keys, ["sum", "k1"])
        XCTAssertEqual(text.renaming("o", [2: 0, 1: 4]).text, "observe c3 o4 sum [initial,new] then mutate o0 k1")
        XCTAssertEqual(text.renamingKey("sum", to: "k0").text, "observe c3 o1 k0 [initial,new] then mutate o2 k1")
        // Words that only look alike are left alone.
        let action = OperationText("observe c0 o0 k0 [] then unobserve-self")
        XCTAssertEqual(action.renaming("c", [0: 1]).text, "observe c1 o0 k0 [] then unobserve-self")
        XCTAssertEqual(OperationText("release-controller c12").slots("c"), [12])
    }

    func testSimplerFormsDropTheHandlerActionAndOptions() {
        let simpler = OperationText("observe c0 o1 k0 [initial,new] then unobserve-self").simplifications
        XCTAssertEqual(simpler.first, "observe c0 o1 k0 [initial,new]")
        XCTAssertTrue(simpler.contains("observe c0 o1 k0 [] then unobserve-self"))
        XCTAssertTrue(simpler.contains("observe c0 o1 k0 [new] then unobserve-self"))
        XCTAssertTrue(simpler.contains("observe c0 o1 k0 [initial] then unobserve-self"))
        XCTAssertEqual(Set(simpler).count, simpler.count)
        XCTAssertEqual(OperationText("mutate o0 k1").simplifications, [])
        for text in simpler { XCTAssertNotNil(Operation(text), text) }
    }

    // MARK: Scenario edits

    private func scenario(_ texts: [[String]], controllers: Int = 4, objects: Int = 5) -> Scenario {
        ControlledFixtures.scenario(texts, objects: objects, controllers: controllers)
    }

    func testCompactionRenumbersTheUsedSlotsFromZero() throws {
        let original = scenario([["observe c3 o4 k0 []", "mutate o4 k0"], ["unobserve c1 o2 k0"]])
        let compacted = try XCTUnwrap(original.compacted())
        XCTAssertEqual(compacted.operations.map { $0.map(\.description) }, [["observe c1 o1 k0 []", "mutate o1 k0"], ["unobserve c0 o0 k0"]])
        XCTAssertEqual(compacted.configuration.controllers, 2)
        XCTAssertEqual(compacted.configuration.objects, 2)
        XCTAssertTrue(compacted.isUsable)
        let truncated = original.truncatingSlots()
        XCTAssertEqual(truncated.configuration.controllers, 4)
        XCTAssertEqual(truncated.configuration.objects, 5)
        XCTAssertEqual(scenario([["mutate o0 k0"]]).compacted()?.configuration.controllers, 1, "never below one slot")
    }

    func testMergingSlotsAndKeysAndDroppingOperationsKeepTheScenarioConsistent() throws {
        let original = scenario([["observe c2 o1 sum [new]", "mutate o1 k1"], ["mutate o3 k2"]])
        XCTAssertEqual(original.usedSlots("o"), [1, 3])
        XCTAssertEqual(original.usedKeys, ["k1", "k2", "sum"])
        let merged = try XCTUnwrap(original.mergingSlot("o", 3, into: 1))
        XCTAssertEqual(merged.usedSlots("o"), [1])
        XCTAssertNil(original.replacingKey("k1", with: "sum"), "mutate o1 sum is no operation")
        XCTAssertEqual(original.replacingKey("sum", with: "k1")?.usedKeys, ["k1", "k2"])
        let fewer = original.replacingOperations([original.operations[1]])
        XCTAssertEqual(fewer.configuration.workers, 1)
        XCTAssertEqual(fewer.configuration.operationsPerWorker, 1)
        XCTAssertTrue(fewer.isUsable)
        XCTAssertFalse(original.replacingOperations([]).isUsable, "a scenario needs a worker")
    }

    // MARK: Guided schedules

    func testTheFullPlanOfAScheduleRepeatsItExactly() {
        let scenario = Scenario(configuration: ControlledFixtures.configuration(), seed: 21)
        let original = ControlledRunner(settings: ControlledFixtures.settings(.random)).runAndEvaluate(scenario, against: RawRuntimeTarget())
        let schedule = original.recording.controlled!.schedule
        let plan = SwitchPlan(schedule)
        XCTAssertGreaterThan(plan.preemptionOrder.count, 10, "random schedules preempt often")
        var runner = ControlledRunner(settings: ControlledFixtures.settings(.random))
        runner.customStrategy = { _ in GuidedStrategy(plan: plan) }
        let guided = runner.runAndEvaluate(scenario, against: RawRuntimeTarget())
        XCTAssertEqual(guided.recording.controlled?.schedule, schedule)
        XCTAssertEqual(guided.history.digest, original.history.digest)
    }

    func testAnEmptyPlanRunsWithoutPreemption() {
        let scenario = Scenario(configuration: ControlledFixtures.configuration(), seed: 22)
        var runner = ControlledRunner()
        runner.customStrategy = { _ in GuidedStrategy(plan: SwitchPlan()) }
        let result = runner.runAndEvaluate(scenario, against: GuardTarget(diagnostics: CountingSink(keepsEvents: false)))
        let schedule = result.recording.controlled!.schedule
        XCTAssertEqual(SwitchPlan(schedule).preemptionOrder, [])
        XCTAssertEqual(schedule.switches, scenario.configuration.workers - 1, "each worker runs to its end, then the next")
    }

    func testPlansDropPreemptionsAndFollowRenumberedWorkers() {
        let schedule = Schedule(
            workers: [0, 0, 1, 1, 0, 2, 2, 1],
            points: [.start, .operation, .acquire, .operation, .wait, .operation, .operation, .finish])
        // The point of step s is where the worker chosen at step s - 1 made its decision.
        let plan = SwitchPlan(schedule)
        XCTAssertEqual(plan.first, 0)
        XCTAssertEqual(
            plan.preemptionOrder, [SwitchPlan.Moment(worker: 0, decision: 1), SwitchPlan.Moment(worker: 0, decision: 2)])
        XCTAssertEqual(plan.preemptions[SwitchPlan.Moment(worker: 0, decision: 1)], 1)
        XCTAssertEqual(plan.forcedSwitches[SwitchPlan.Moment(worker: 1, decision: 1)], 0, "worker 1 waited")
        XCTAssertEqual(plan.forcedSwitches[SwitchPlan.Moment(worker: 2, decision: 1)], 1, "worker 2 finished")
        XCTAssertEqual(plan.preemptions[SwitchPlan.Moment(worker: 0, decision: 2)], 2)
        XCTAssertEqual(plan.keeping(preemptions: []).preemptions, [:])
        let withoutWorkerOne = plan.renumbering(workers: [0, 2])
        XCTAssertEqual(withoutWorkerOne.preemptions, [SwitchPlan.Moment(worker: 0, decision: 2): 1])
        XCTAssertEqual(withoutWorkerOne.forcedSwitches, [:])
    }
}
