import FaultInjector
import FaultInjectorTestSupport
import Foundation
import GuardCore
import XCTest

/// Systems under test that users bring: anything conforming to `SystemUnderTest` runs under the same oracle.
final class CustomTargetTests: XCTestCase {
    /// An app's own facade in front of the guard (adds nothing but an extra layer): it must pass like the guard.
    struct FacadeTarget: SystemUnderTest {
        let name = "app-facade"
        let promisesGuardSemantics = true

        func makeController(
            for observer: StressObserver, retainsObjects: Bool, diagnostics: any DiagnosticSink
        ) -> any StressController {
            Facade(controller: ObservationController(
                observer: observer, retainsObservedObjects: retainsObjects, diagnosticSink: CountingSink(keepsEvents: false)))
        }

        final class Facade: StressController, @unchecked Sendable {
            let controller: ObservationController<StressObserver>
            init(controller: ObservationController<StressObserver>) { self.controller = controller }

            func observe(_ object: StressObject, keyPath: String, options: KeyValueObservingOptions, sink: DeliverySink, call: StressCall) -> ObserveOutcome {
                ObserveOutcome(controller.observe(object, keyPath: keyPath, options: options, file: call.file, line: call.line) { observer, object, change in
                    sink.deliver(observer: observer, object: object, change: change)
                })
            }

            func unobserve(_ object: StressObject, keyPath: String, call: StressCall) -> UnobserveOutcome {
                UnobserveOutcome(controller.unobserve(object, keyPath: keyPath, file: call.file, line: call.line))
            }

            func unobserve(_ object: StressObject, call: StressCall) -> UnobserveOutcome {
                UnobserveOutcome(controller.unobserve(object, file: call.file, line: call.line))
            }

            func unobserveAll(call: StressCall) -> Int? { controller.unobserveAll() }
        }
    }

    /// A wrapper with a planted bug: its key-path unobserve reports success but forgets to remove.
    struct ForgetfulTarget: SystemUnderTest {
        let name = "forgetful"
        let promisesGuardSemantics = true

        func makeController(
            for observer: StressObserver, retainsObjects: Bool, diagnostics: any DiagnosticSink
        ) -> any StressController {
            Forgetful(inner: FacadeTarget().makeController(for: observer, retainsObjects: retainsObjects, diagnostics: diagnostics))
        }

        final class Forgetful: ForwardingController, @unchecked Sendable {
            override func unobserve(_ object: StressObject, keyPath: String, call: StressCall) -> UnobserveOutcome { .removed }
        }
    }

    /// A wrapper whose unobserve-all takes a semaphore and returns early without signalling it (the singleton
    /// controller of the reference material): the second caller blocks for good.
    struct SemaphoreLeakTarget: SystemUnderTest {
        let name = "semaphore-leak"
        let promisesGuardSemantics = true
        let semaphore = DispatchSemaphore(value: 1)

        func makeController(
            for observer: StressObserver, retainsObjects: Bool, diagnostics: any DiagnosticSink
        ) -> any StressController {
            Leaky(inner: FacadeTarget().makeController(for: observer, retainsObjects: retainsObjects, diagnostics: diagnostics), semaphore: semaphore)
        }

        final class Leaky: ForwardingController, @unchecked Sendable {
            let semaphore: DispatchSemaphore
            init(inner: any StressController, semaphore: DispatchSemaphore) {
                self.semaphore = semaphore
                super.init(inner: inner)
            }
            override func unobserveAll(call: StressCall) -> Int? {
                semaphore.wait()
                return inner.unobserveAll(call: call)
                // The early return that never signals.
            }
        }
    }

    /// 12 queues × 150 operations with the default mix and faults.
    private var configuration: ScenarioConfiguration { RunFixtures.configuration() }

    func testAUsersFacadeOverTheGuardPassesTheOracle() {
        let result = ChaosRunner().runAndEvaluate(Scenario(configuration: configuration, seed: 31), against: FacadeTarget())
        XCTAssertTrue(result.passed, result.verdict.signature)
        XCTAssertEqual(result.targetName, "app-facade")
        XCTAssertGreaterThan(result.verdict.checks["observe/unobserve results linearizable", default: 0], 0)
    }

    func testAWrapperThatForgetsToRemoveIsCaught() {
        let result = ChaosRunner().runAndEvaluate(Scenario(configuration: configuration, seed: 32), against: ForgetfulTarget())
        XCTAssertFalse(result.passed)
        // It claims removals that never happened: later results contradict them, and changes still arrive.
        XCTAssertGreaterThan(result.verdict.violationCounts[.nonLinearizable, default: 0], 0, result.verdict.signature)
        XCTAssertGreaterThan(
            result.verdict.violationCounts[.deliveryOutsideRegistration, default: 0], 0, result.verdict.signature)
    }

    func testAWrapperThatNeverReleasesItsSemaphoreIsReportedAsADeadlock() {
        var runner = ChaosRunner()
        runner.deadlockTimeout = 1
        var configuration = configuration
        configuration.mix[.unobserveAll] = 20
        let start = Date()
        let result = runner.runAndEvaluate(Scenario(configuration: configuration, seed: 33), against: SemaphoreLeakTarget())
        XCTAssertTrue(result.verdict.abandoned, "the run should have been abandoned as deadlocked")
        XCTAssertEqual(result.verdict.violationCounts[.deadlock], 1, result.verdict.signature)
        let message = result.verdict.violations.first { $0.kind == .deadlock }?.message ?? ""
        XCTAssertTrue(message.contains("stuck"), message)
        XCTAssertTrue(message.contains("unobserve-all"), "the report names what the stuck workers were doing: \(message)")
        XCTAssertLessThan(Date().timeIntervalSince(start), BuildSanitizer.timeLimit(30), "the watchdog took too long")
        // The harness is still usable after abandoning a deadlocked run.
        let after = ChaosRunner().runAndEvaluate(Scenario(configuration: configuration, seed: 34), against: FacadeTarget())
        XCTAssertTrue(after.passed, after.verdict.signature)
    }
}
