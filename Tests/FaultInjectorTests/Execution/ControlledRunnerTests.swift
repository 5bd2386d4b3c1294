@testable import FaultInjector
import FaultInjectorTestSupport
import Foundation
@testable import GuardCore
import XCTest

/// The controlled runner: one worker at a time, switching only at schedule points; the same seed gives the same
/// schedule and history; deadlocks, self-deadlocks, hidden waits and step limits are reported, not hung on.
final class ControlledRunnerTests: XCTestCase {
    private let guardTarget = GuardTarget(diagnostics: CountingSink(keepsEvents: false))

    private func describe(_ result: RunResult) -> String {
        "signature \(result.verdict.signature): " + result.verdict.violations.prefix(3).map(\.message).joined(separator: " | ")
    }

    private func run(
        _ scenario: Scenario, _ target: any SystemUnderTest, _ settings: ControlledRunner.Settings,
        replaying schedule: Schedule? = nil
    ) -> RunResult {
        ControlledRunner(settings: settings, replaying: schedule).runAndEvaluate(scenario, against: target)
    }

    // MARK: Determinism

    func testTheSameSeedGivesTheSameScheduleAndHistory() {
        for strategy in [StrategyChoice.pct(depth: 3), .random] {
            for target in [guardTarget, RawRuntimeTarget()] as [any SystemUnderTest] {
                for seed: UInt64 in 1...10 {
                    let scenario = Scenario(configuration: ControlledFixtures.configuration(), seed: seed)
                    let label = "\(strategy), \(target.name), seed \(seed)"
                    let first = run(scenario, target, ControlledFixtures.settings(strategy))
                    let second = run(scenario, target, ControlledFixtures.settings(strategy))
                    let schedule = first.recording.controlled?.schedule
                    XCTAssertNotNil(schedule, label)
                    XCTAssertGreaterThan(schedule?.count ?? 0, scenario.operationCount, "\(label): every operation is a step at least")
                    XCTAssertTrue(schedule == second.recording.controlled?.schedule, "\(label): the schedules differ")
                    XCTAssertEqual(first.history.digest, second.history.digest, "\(label): the histories differ")
                    XCTAssertTrue(first.history.operations.map(\.id) == second.history.operations.map(\.id), label)
                    XCTAssertEqual(first.history.deliveries.count, second.history.deliveries.count, label)
                    XCTAssertEqual(first.verdict.signature, second.verdict.signature, label)
                    XCTAssertFalse(first.verdict.abandoned, label)
                }
            }
        }
    }

    /// Every profile against every target that bulk-removes: the same seed takes the same steps twice in one process,
    /// although the objects live at other addresses the second time. (A bulk removal that released what it removed in
    /// the order of an address-keyed table, in the guard or in the token adapter, took other lock steps when the
    /// addresses changed, so a seed file replayed with a schedule divergence now and then.)
    func testBulkRemovalsTakeTheSameStepsWhereverTheObjectsLive() throws {
        for profile in ScenarioProfile.allCases {
            var configuration = profile.configuration()
            configuration.workers = 4
            configuration.operationsPerWorker = 30
            for name in ["guard", "token", "raw"] {
                let target = try XCTUnwrap(TargetCatalog.make(name, diagnostics: CountingSink(keepsEvents: false)))
                for seed: UInt64 in 1...3 {
                    for strategy in [StrategyChoice.random, .pct(depth: 3)] {
                        let scenario = Scenario(configuration: configuration, seed: seed)
                        let label = "\(profile.rawValue), \(name), seed \(seed), \(strategy)"
                        let first = run(scenario, target, ControlledFixtures.settings(strategy))
                        let second = run(scenario, target, ControlledFixtures.settings(strategy))
                        XCTAssertTrue(
                            first.recording.controlled?.schedule == second.recording.controlled?.schedule,
                            "\(label): the schedules differ")
                        XCTAssertEqual(first.history.digest, second.history.digest, "\(label): the histories differ")
                    }
                }
            }
        }
    }

    /// The same seed takes the same steps after GuardCore's bounded per-class caches started over (something else in
    /// the process filled them, as GuardCore's own tests of a model answering arbitrary keys do): the runner warms
    /// them again first. (Warmed once per process, the run after a flood missed the entries the warm-up had made and
    /// took the caches' locks again, extra acquire steps the run before had not taken.)
    func testTheSameSeedTakesTheSameStepsAfterGuardCoresCachesStartOver() {
        var configuration = ScenarioProfile.mixed.configuration()
        configuration.workers = 4
        configuration.operationsPerWorker = 30
        for seed: UInt64 in 1...2 {
            let scenario = Scenario(configuration: configuration, seed: seed)
            let label = "seed \(seed)"
            let before = run(scenario, guardTarget, ControlledFixtures.settings(.random))
            let evictions = RuntimeCacheEvictions.count
            // Nearly twice the limit: the caches start over once and are left nearly full, so warming them again
            // makes them start over once more, midway.
            ArbitraryKeysModel.flood(keys: 2 * ObservedClassInfo.cacheLimit - 10, named: "flood-\(seed)-")
            XCTAssertGreaterThan(RuntimeCacheEvictions.count, evictions, "\(label): the flood made the caches start over")
            let after = run(scenario, guardTarget, ControlledFixtures.settings(.random))
            XCTAssertNotNil(before.recording.controlled?.schedule, label)
            XCTAssertTrue(
                before.recording.controlled?.schedule == after.recording.controlled?.schedule,
                "\(label): the schedules differ")
            XCTAssertEqual(before.history.digest, after.history.digest, "\(label): the histories differ")
        }
    }

    func testDifferentSeedsAndStrategiesGiveDifferentSchedules() {
        let scenario = Scenario(configuration: ControlledFixtures.configuration(), seed: 9)
        var schedules: Set<Schedule> = []
        for strategy in [StrategyChoice.pct(depth: 3), .random] {
            for seed: UInt64 in [9, 10, 11] {
                let reseeded = Scenario(configuration: scenario.configuration, seed: seed, operations: scenario.operations)
                if let schedule = run(reseeded, guardTarget, ControlledFixtures.settings(strategy)).recording.controlled?.schedule {
                    schedules.insert(schedule)
                }
            }
        }
        XCTAssertEqual(schedules.count, 6, "the same operations under 6 strategy seeds should take 6 different schedules")
    }

    func testHistoryTimesAreLogicalTicks() {
        let result = run(Scenario(configuration: ControlledFixtures.configuration(), seed: 4), guardTarget, .init())
        let performed = result.history.operations.filter { $0.outcome != .skipped }
        let times = performed.flatMap { [$0.call, $0.ret] } + result.history.deliveries.map(\.time)
        XCTAssertEqual(Set(times).count, times.count, "every stamp is its own tick")
        XCTAssertLessThan(times.max() ?? 0, 1_000_000, "ticks count events, not nanoseconds")
        XCTAssertTrue(result.history.operations.allSatisfy { $0.call <= $0.ret })
    }

    func testOnlyOneWorkerRunsAtATime() {
        let counter = ControlledTargets.OverlapCounter()
        for seed: UInt64 in [1, 2] {
            let result = run(
                Scenario(configuration: ControlledFixtures.configuration(workers: 6, operations: 40), seed: seed), counter,
                ControlledFixtures.settings(.random))
            XCTAssertTrue(result.passed, describe(result))
        }
        XCTAssertEqual(counter.maximumOverlap, 1, "two workers ran at the same instant")
    }

    // MARK: Verdicts

    func testTheGuardPassesUnderBothStrategies() {
        for strategy in [StrategyChoice.pct(depth: 2), .pct(depth: 5), .random] {
            for seed: UInt64 in [21, 22, 23] {
                let result = run(Scenario(configuration: ControlledFixtures.configuration(), seed: seed), guardTarget, .init(strategy: strategy))
                XCTAssertTrue(result.passed, "\(strategy), seed \(seed): \(describe(result))")
                XCTAssertEqual(result.verdict.runtimeMisuses, [:])
                XCTAssertGreaterThan(result.verdict.deliveries, 0)
                XCTAssertGreaterThan(result.verdict.checks["finished within the step limit"] ?? 0, 0)
                XCTAssertNil(result.recording.controlled?.divergence)
            }
        }
    }

    func testTheRawRuntimeFailsUnderTheControlledRunner() {
        let result = run(Scenario(configuration: ControlledFixtures.configuration(), seed: 5), RawRuntimeTarget(), .init())
        XCTAssertFalse(result.passed)
        XCTAssertGreaterThan(result.verdict.runtimeMisuses[.notRegistered, default: 0], 0, describe(result))
    }

    // MARK: Replaying a recorded schedule

    func testFollowingTheRecordedScheduleRepeatsTheRunExactly() throws {
        for target in [guardTarget, RawRuntimeTarget()] as [any SystemUnderTest] {
            let scenario = Scenario(configuration: ControlledFixtures.configuration(), seed: 31)
            let original = run(scenario, target, ControlledFixtures.settings(.random))
            let schedule = try XCTUnwrap(original.recording.controlled?.schedule)
            let replay = run(scenario, target, ControlledFixtures.settings(.random), replaying: schedule)
            XCTAssertNil(replay.recording.controlled?.divergence, target.name)
            XCTAssertTrue(replay.recording.controlled?.schedule == schedule, target.name)
            XCTAssertEqual(replay.history.digest, original.history.digest, target.name)
            XCTAssertEqual(replay.verdict.signature, original.verdict.signature, target.name)
        }
    }

    /// A system whose behaviour depends on memory addresses cannot repeat a run; the replay must say so rather
    /// than pass off a different run as the recorded one.
    func testAReplayOfASystemThatDependsOnAddressesIsReportedAsNotExact() throws {
        let target = ControlledTargets.AddressOrdered()
        var configuration = ControlledFixtures.configuration(workers: 3, operations: 30)
        configuration.mix[.unobserveAll] = 30
        configuration.mix[.releaseObject] = 10
        var exact = 0
        var reported: [String] = []
        for seed: UInt64 in 1...20 {
            let scenario = Scenario(configuration: configuration, seed: seed)
            let original = run(scenario, target, .init(strategy: .random))
            let schedule = try XCTUnwrap(original.recording.controlled?.schedule)
            let replay = run(scenario, target, .init(strategy: .random), replaying: schedule)
            if let divergence = replay.recording.controlled?.divergence {
                reported.append(divergence.description)
            } else if replay.history.digest != original.history.digest {
                reported.append("same schedule, different history")
            } else {
                exact += 1
            }
        }
        XCTAssertFalse(reported.isEmpty, "20 replays of an address-ordered system all matched: the planted nondeterminism went unseen")
        XCTAssertTrue(reported.allSatisfy { $0.hasPrefix("the schedule diverged at step ") || $0 == "same schedule, different history" }, "\(reported)")
        XCTAssertEqual(exact + reported.count, 20)
    }

    func testAScheduleThatEndsEarlyDivergesUnlessLongerRunsAreAllowed() throws {
        let scenario = Scenario(configuration: ControlledFixtures.configuration(), seed: 32)
        let original = run(scenario, guardTarget, .init())
        let schedule = try XCTUnwrap(original.recording.controlled?.schedule)
        let cut = schedule.prefix(schedule.count / 2)

        let strict = run(scenario, guardTarget, .init(), replaying: cut)
        let divergence = try XCTUnwrap(strict.recording.controlled?.divergence)
        XCTAssertEqual(divergence.step, cut.count)
        XCTAssertTrue(divergence.description.hasPrefix("the schedule diverged at step \(cut.count): "), divergence.description)
        XCTAssertTrue(divergence.description.contains("the recording ends after"), divergence.description)
        XCTAssertTrue(strict.passed, "a divergent replay still finishes cleanly: \(describe(strict))")

        var lenient = ControlledRunner(settings: .init(), replaying: cut)
        lenient.allowsLongerRuns = true
        let continued = lenient.runAndEvaluate(scenario, against: guardTarget)
        XCTAssertNil(continued.recording.controlled?.divergence)
        XCTAssertTrue(continued.recording.controlled?.schedule.prefix(cut.count) == cut)
    }

    func testAScheduleFromOtherOperationsDivergesAndSaysWhere() throws {
        let original = run(Scenario(configuration: ControlledFixtures.configuration(), seed: 33), guardTarget, .init(strategy: .random))
        let schedule = try XCTUnwrap(original.recording.controlled?.schedule)
        let other = Scenario(configuration: ControlledFixtures.configuration(), seed: 34)
        let replay = run(other, guardTarget, .init(strategy: .random), replaying: schedule)
        let divergence = try XCTUnwrap(replay.recording.controlled?.divergence, "another scenario cannot follow this schedule")
        XCTAssertGreaterThan(divergence.step, 0)
        XCTAssertTrue(divergence.description.hasPrefix("the schedule diverged at step \(divergence.step): "))
        XCTAssertFalse(replay.verdict.abandoned)
    }

    func testAScheduleThatRunsAFinishedWorkerDivergesAtThatStep() throws {
        let scenario = ControlledFixtures.scenario([["mutate o0 k0"], ["mutate o0 k1", "mutate o0 k2", "mutate o0 k0"]])
        let original = run(scenario, guardTarget, .init(strategy: .random))
        let schedule = try XCTUnwrap(original.recording.controlled?.schedule)
        // The step at which the first worker finished: the worker that reached it ran at the step before.
        let firstFinish = try XCTUnwrap(schedule.points.firstIndex(of: .finish))
        let finished = schedule.workers[firstFinish - 1]
        let step = firstFinish + 1
        XCTAssertLessThan(step, schedule.count, "the other worker still has steps: \(schedule.workersText)")
        var workers = schedule.workers
        workers[step] = finished
        let replay = run(scenario, guardTarget, .init(strategy: .random), replaying: Schedule(workers: workers, points: schedule.points))
        let divergence = try XCTUnwrap(replay.recording.controlled?.divergence)
        XCTAssertEqual(divergence.step, step)
        XCTAssertEqual(
            divergence.description,
            "the schedule diverged at step \(step): the recording runs worker \(finished) next, but it is blocked or "
                + "finished (runnable: \(1 - finished))")
    }

    // MARK: Trace

    func testTheTraceNamesEveryOperationDeliveryAndLockStepByStep() throws {
        let scenario = Scenario(configuration: ControlledFixtures.configuration(), seed: 41)
        let result = run(scenario, guardTarget, ControlledFixtures.settings(.pct(depth: 3), recordsTrace: true))
        let execution = try XCTUnwrap(result.recording.controlled)
        let trace = try XCTUnwrap(execution.trace)
        var began: Set<Int> = []
        var ended: Set<Int> = []
        var delivered = 0
        var decisions = 0
        var acquired = 0
        var released = 0
        for event in trace.events {
            switch event.kind {
            case .began(let id, _, _, _): began.insert(id)
            case .ended(let id, _): ended.insert(id)
            case .delivered: delivered += 1
            case .decision: decisions += 1
            case .acquired: acquired += 1
            case .released: released += 1
            default: break
            }
        }
        let performed = Set(result.history.operations.filter { $0.outcome != .skipped }.map(\.id))
        XCTAssertEqual(began, performed)
        XCTAssertEqual(ended, performed)
        XCTAssertEqual(delivered, result.verdict.deliveries)
        XCTAssertEqual(decisions, execution.steps - 1, "every step but the runner's first is a worker's decision")
        XCTAssertGreaterThan(acquired, 0)
        XCTAssertEqual(acquired, released)
        XCTAssertTrue(zip(trace.events, trace.events.dropFirst()).allSatisfy { $0.step <= $1.step }, "steps never go back")
        XCTAssertFalse(trace.lockNames.isEmpty, "the harness names its own locks")
        XCTAssertTrue(trace.lockNames.values.contains { $0.contains("mutation lock") }, "\(trace.lockNames)")
        // Without asking, no trace is kept.
        XCTAssertNil(run(scenario, guardTarget, .init()).recording.controlled?.trace)
    }

    // MARK: Deadlocks, hidden waits, step limits

    func testALockThatIsNeverReleasedIsReportedAsADeadlockAtOnce() throws {
        var settings = ControlledRunner.Settings()
        settings.blockedTimeout = 60  // the report must not come from the watchdog
        let scenario = ControlledFixtures.scenario([["unobserve-all c0", "mutate o0 k0"], ["mutate o0 k1", "unobserve-all c0"]])
        let start = Date()
        let result = run(scenario, ControlledTargets.LockLeak(), settings)
        XCTAssertLessThan(
            Date().timeIntervalSince(start), BuildSanitizer.timeLimit(5), "a deadlock among announced locks is known at once")
        XCTAssertTrue(result.verdict.abandoned)
        XCTAssertEqual(result.verdict.violationCounts[.deadlock], 1, describe(result))
        let message = try XCTUnwrap(result.recording.facts.deadlock)
        XCTAssertTrue(message.contains("deadlock at step"), message)
        XCTAssertTrue(message.contains("every unfinished worker is blocked"), message)
        XCTAssertTrue(message.contains("(unobserve-all c0) waits for lock L"), message)
        XCTAssertTrue(message.contains("held by worker"), message)
        // The harness is still usable.
        let after = run(Scenario(configuration: ControlledFixtures.configuration(), seed: 1), guardTarget, .init())
        XCTAssertTrue(after.passed, describe(after))
    }

    func testASelfDeadlockIsReportedAtOnce() throws {
        var settings = ControlledRunner.Settings()
        settings.blockedTimeout = 60
        let scenario = ControlledFixtures.scenario([["unobserve-all c0", "unobserve-all c0"], ["mutate o0 k0"]])
        let start = Date()
        let result = run(scenario, ControlledTargets.LockLeak(), settings)
        XCTAssertLessThan(Date().timeIntervalSince(start), BuildSanitizer.timeLimit(5))
        XCTAssertTrue(result.verdict.abandoned)
        let message = try XCTUnwrap(result.recording.facts.deadlock)
        XCTAssertTrue(message.hasPrefix("self-deadlock: worker 0 in op 1 (unobserve-all c0) takes lock L"), message)
        XCTAssertTrue(message.contains("which it has held since step"), message)
        XCTAssertEqual(result.verdict.signature, "deadlock")
    }

    func testAWaitTheSchedulerCannotSeeIsReportedAsBlockedOutsideItsControl() throws {
        var settings = ControlledRunner.Settings()
        settings.blockedTimeout = 0.5
        let scenario = ControlledFixtures.scenario([["mutate o0 k0", "unobserve-all c0"], ["mutate o0 k1", "mutate o0 k2"]])
        let start = Date()
        let result = run(scenario, ControlledTargets.SilentSemaphore(), settings)
        XCTAssertLessThan(Date().timeIntervalSince(start), BuildSanitizer.timeLimit(10))
        XCTAssertTrue(result.verdict.abandoned)
        let message = try XCTUnwrap(result.recording.facts.deadlock)
        XCTAssertTrue(message.hasPrefix("worker 0 in op 1 (unobserve-all c0) reached no schedule point for"), message)
        XCTAssertTrue(message.contains("blocked outside the scheduler's control"), message)
        XCTAssertTrue(message.contains("its last schedule point was step"), message)
        XCTAssertTrue(message.contains("take its locks as FaultInjector's ScheduledLock"), "it says what to do: \(message)")
        XCTAssertEqual(result.verdict.signature, "deadlock")
        let after = run(Scenario(configuration: ControlledFixtures.configuration(), seed: 2), guardTarget, .init())
        XCTAssertTrue(after.passed, describe(after))
    }

    func testARunPastItsStepLimitIsReportedAndStillEnds() {
        var settings = ControlledRunner.Settings()
        settings.stepLimit = 40
        let result = run(Scenario(configuration: ControlledFixtures.configuration(), seed: 7), guardTarget, settings)
        XCTAssertFalse(result.verdict.abandoned, "past the limit the workers run on uncontrolled to the end")
        XCTAssertEqual(result.recording.controlled?.steps, 40)
        XCTAssertNotNil(result.recording.facts.stepLimitExceeded)
        XCTAssertEqual(result.verdict.signature, "step-limit", describe(result))
        XCTAssertTrue(result.verdict.violations.first?.message.contains("limit of 40 schedule steps") ?? false)
        XCTAssertEqual(result.history.operations.filter { $0.index >= 0 }.count >= result.scenario.operationCount, true)
    }
}

extension ControlledRunner.Settings {
    /// Default settings with `strategy`.
    init(strategy: StrategyChoice) {
        self.init()
        self.strategy = strategy
    }
}
