import FaultInjector
import Foundation
import GuardCore
import XCTest

/// A wrapper of your own that serializes with a lock of its own, on the controlled runner: with FaultInjector's
/// `ScheduledLock` the scheduler sees the lock (no false deadlock, and `called-under-lock` applies); with a lock it
/// cannot see (`NSLock`), a worker blocked on it is reported with a message that names the likely cause and the fix.
///
/// Public API only (no `@testable`): this is what a platform team outside the package can write.
final class ScheduledLockTests: XCTestCase {
    /// The controlled runner as the campaigns use it: PCT depth 3 on the controlled `mixed` profile.
    private func runControlled(
        _ target: SerializingWrapperTarget, seed: UInt64, blockedTimeout: Double = 2
    ) -> RunResult {
        var settings = ControlledRunner.Settings()
        settings.strategy = .pct(depth: 3)
        settings.blockedTimeout = blockedTimeout
        let scenario = Scenario(configuration: ScenarioProfile.mixed.configuration(controlled: true), seed: seed)
        return ControlledRunner(settings: settings).runAndEvaluate(scenario, against: target)
    }

    /// The seeds the tests run: on some of them the wrapper built with `NSLock` has a worker paused while it holds
    /// the lock and another blocked on it.
    private static let seeds: [UInt64] = Array(1...40)

    func testAWrapperSerializingWithAScheduledLockIsCleanOnTheControlledRunner() {
        let target = SerializingWrapperTarget(lockKind: .scheduled)
        for seed in Self.seeds {
            let result = runControlled(target, seed: seed)
            XCTAssertTrue(
                result.passed,
                "seed \(seed): \(result.verdict.signature): \(result.verdict.violations.prefix(2).map(\.message))")
            XCTAssertFalse(result.verdict.abandoned, "seed \(seed)")
            XCTAssertGreaterThan(result.verdict.checks["observe/unobserve results linearizable", default: 0], 0)
        }
    }

    func testTheSchedulerMakesWorkersWaitForTheScheduledLockAndNamesIt() throws {
        // With the trace on, the scheduler records every wait for an announced lock, with the lock's name: over the
        // same seeds, workers wait for the wrapper's own lock (rather than run into it), and every run is clean.
        var settings = ControlledRunner.Settings()
        settings.strategy = .pct(depth: 3)
        settings.recordsTrace = true
        var waitsForTheWrappersLock = 0
        for seed in UInt64(1)...40 {
            let scenario = Scenario(configuration: ScenarioProfile.mixed.configuration(controlled: true), seed: seed)
            let result = ControlledRunner(settings: settings).runAndEvaluate(
                scenario, against: SerializingWrapperTarget(lockKind: .scheduled))
            XCTAssertTrue(result.passed, "seed \(seed): \(result.verdict.signature)")
            let trace = try XCTUnwrap(result.recording.controlled?.trace)
            for event in trace.events {
                if case .waits(let lock, _) = event.kind, trace.lockNames[lock] == "SerializingWrapper.table" {
                    waitsForTheWrappersLock += 1
                }
            }
        }
        XCTAssertGreaterThan(waitsForTheWrappersLock, 0, "no worker ever waited for the wrapper's ScheduledLock")
    }

    /// Every run of the `NSLock` wrapper either passes or, blocked on the lock the scheduler cannot see, is reported
    /// with the likely cause and the fix; some seeds block.
    func testAWorkerBlockedOnAnUnannouncedLockIsReportedWithItsLikelyCauseAndTheFix() throws {
        var blocked = 0
        for seed in Self.seeds {
            let result = runControlled(SerializingWrapperTarget(lockKind: .unannounced), seed: seed, blockedTimeout: 0.5)
            guard result.verdict.abandoned else {
                XCTAssertTrue(result.passed, "seed \(seed): \(result.verdict.signature)")
                continue
            }
            blocked += 1
            let message = try XCTUnwrap(result.verdict.violations.first { $0.kind == .deadlock }?.message, "seed \(seed)")
            XCTAssertTrue(message.contains("blocked outside the scheduler's control"), message)
            XCTAssertTrue(message.contains("need not be a deadlock of the system under test"), message)
            XCTAssertTrue(message.contains("the scheduler paused worker "), "it names the paused holder: \(message)")
            XCTAssertTrue(message.contains("ScheduledLock"), "it says what to do: \(message)")
        }
        XCTAssertGreaterThan(blocked, 0, "no seed blocked on the NSLock")
    }

    func testAHandlerCalledUnderAScheduledLockIsCalledUnderLock() {
        let scenario = Scenario(
            configuration: {
                var configuration = ScenarioConfiguration.controlledDefault
                configuration.workers = 1
                configuration.operationsPerWorker = 2
                configuration.objects = 1
                configuration.controllers = 1
                configuration.weakHoldingEvery = 0
                return configuration
            }(),
            seed: 1, operations: [[Operation("observe c0 o0 k0 [new]")!, Operation("mutate o0 k0")!]])
        let underScheduled = ControlledRunner().runAndEvaluate(
            scenario, against: SerializingWrapperTarget(lockKind: .scheduled, deliversUnderLock: true))
        XCTAssertEqual(underScheduled.verdict.signature, "called-under-lock")
        XCTAssertTrue(
            underScheduled.verdict.violations.contains { $0.message.contains("while the system held one of its locks") },
            "\(underScheduled.verdict.violations.map(\.message))")
        // The lock the scheduler cannot see hides the same mistake: the check needs the scheduled lock.
        let underUnannounced = ControlledRunner().runAndEvaluate(
            scenario, against: SerializingWrapperTarget(lockKind: .unannounced, deliversUnderLock: true))
        XCTAssertTrue(underUnannounced.passed, underUnannounced.verdict.signature)
        // And delivering outside the lock is clean.
        let correct = ControlledRunner().runAndEvaluate(scenario, against: SerializingWrapperTarget(lockKind: .scheduled))
        XCTAssertTrue(correct.passed, correct.verdict.signature)
        XCTAssertEqual(correct.verdict.deliveries, 1)
    }

    func testAScheduledLockTakenTwiceByOneWorkerIsASelfDeadlockNamingTheLock() throws {
        struct TakesItsLockTwice: SystemUnderTest {
            let name = "takes-its-lock-twice"
            let promisesGuardSemantics = true
            func makeController(
                for observer: StressObserver, retainsObjects: Bool, diagnostics: any DiagnosticSink
            ) -> any StressController {
                Controller()
            }
            final class Controller: StressController, @unchecked Sendable {
                let lock = ScheduledLock(name: "TakesItsLockTwice.lock")
                func observe(
                    _ object: StressObject, keyPath: String, options: KeyValueObservingOptions, sink: DeliverySink,
                    call: StressCall
                ) -> ObserveOutcome {
                    lock.withLock { lock.withLock { .registered } }
                }
                func unobserve(_ object: StressObject, keyPath: String, call: StressCall) -> UnobserveOutcome { .notRegistered }
                func unobserve(_ object: StressObject, call: StressCall) -> UnobserveOutcome { .notRegistered }
                func unobserveAll(call: StressCall) -> Int? { 0 }
            }
        }
        var configuration = ScenarioConfiguration.controlledDefault
        configuration.workers = 1
        configuration.operationsPerWorker = 1
        configuration.objects = 1
        configuration.controllers = 1
        let scenario = Scenario(configuration: configuration, seed: 1, operations: [[Operation("observe c0 o0 k0 []")!]])
        let result = ControlledRunner().runAndEvaluate(scenario, against: TakesItsLockTwice())
        XCTAssertTrue(result.verdict.abandoned)
        let message = try XCTUnwrap(result.verdict.violations.first { $0.kind == .deadlock }?.message)
        XCTAssertTrue(message.hasPrefix("self-deadlock: "), message)
        XCTAssertTrue(message.contains("(TakesItsLockTwice.lock)"), "the report names the lock: \(message)")
    }

    func testOutsideAControlledRunItIsAPlainLock() {
        let lock = ScheduledLock()
        var counter = 0
        let box = UnsafeSendableBox { counter += 1 }
        DispatchQueue.concurrentPerform(iterations: 8) { _ in
            for _ in 0..<1_000 { lock.withLock { box.body() } }
        }
        XCTAssertEqual(counter, 8_000)
        XCTAssertNil(lock.name)
        XCTAssertEqual(ScheduledLock(name: "x").name, "x")
    }
}

/// Hands a non-`Sendable` closure to `concurrentPerform`; the test serializes every call with the lock under test.
private struct UnsafeSendableBox: @unchecked Sendable {
    let body: () -> Void
}
