@testable import FaultInjector
import FaultInjectorTestSupport
import Foundation
import GuardCore
import XCTest

/// Nothing user-owned runs under the system's locks: the controlled runner knows which locks
/// each worker holds, so the oracle names every handler, diagnostic sink and observer deinit that starts while the
/// system holds one, even when nothing deadlocks.
final class UserCodeUnderLockTests: XCTestCase {
    /// The guard behind a wrapper that calls it while holding a lock of its own: the guard's handlers (the
    /// `.initial` one) and its diagnostic sink then run under the wrapper's lock.
    struct CallsUnderItsLock: SystemUnderTest {
        let name = "calls-under-its-lock"
        let promisesGuardSemantics = true
        let reportsDiagnostics = true

        func makeController(
            for observer: StressObserver, retainsObjects: Bool, diagnostics: any DiagnosticSink
        ) -> any StressController {
            Controller(
                inner: ForwardingController.guardController(
                    for: observer, retainsObjects: retainsObjects, diagnostics: diagnostics))
        }

        final class Controller: ForwardingController, @unchecked Sendable {
            private let lock = Lock()

            override func observe(
                _ object: StressObject, keyPath: String, options: KeyValueObservingOptions, sink: DeliverySink,
                call: StressCall
            ) -> ObserveOutcome {
                lock.withLock { inner.observe(object, keyPath: keyPath, options: options, sink: sink, call: call) }
            }

            override func unobserve(_ object: StressObject, keyPath: String, call: StressCall) -> UnobserveOutcome {
                lock.withLock { inner.unobserve(object, keyPath: keyPath, call: call) }
            }
        }
    }

    private func run(_ texts: [[String]], against target: any SystemUnderTest) -> RunResult {
        ControlledRunner().runAndEvaluate(ControlledFixtures.scenario(texts), against: target)
    }

    func testAHandlerRunUnderTheSystemsLockIsReportedThoughNothingDeadlocks() {
        let result = run([["observe c0 o0 k0 [initial,new]"]], against: CallsUnderItsLock())
        XCTAssertEqual(result.verdict.signature, "called-under-lock")
        let messages = result.verdict.violations.map(\.message)
        XCTAssertEqual(messages.count, 1, "\(messages)")
        XCTAssertTrue(messages[0].hasPrefix("the handler of registration #"), messages[0])
        XCTAssertTrue(messages[0].contains("while the system held one of its locks"), messages[0])
    }

    func testADiagnosticSinkCalledUnderTheSystemsLockIsReported() {
        let result = run([["unobserve c0 o0 k0"]], against: CallsUnderItsLock())
        XCTAssertEqual(result.verdict.signature, "called-under-lock")
        XCTAssertTrue(result.verdict.violations.contains { $0.message.hasPrefix("a diagnostic sink ran on worker 0") })
    }

    func testThePlantedHandlerUnderLockBugIsReportedAtItsFirstNotification() {
        // No handler action calls back into the controller, so nothing deadlocks: the lock held is what is seen.
        let result = run([["observe c0 o0 k0 [new]", "mutate o0 k0"]], against: PlantedBugTarget(.handlerUnderLock))
        XCTAssertEqual(result.verdict.signature, "called-under-lock")
    }

    func testTheGuardAndTheRawRuntimeCallNoUserCodeUnderALock() {
        for target in [GuardTarget(diagnostics: CountingSink(keepsEvents: false)), RawRuntimeTarget()] as [any SystemUnderTest] {
            for seed: UInt64 in 1...8 {
                let scenario = Scenario(configuration: ControlledFixtures.configuration(), seed: seed)
                let result = ControlledRunner().runAndEvaluate(scenario, against: target)
                XCTAssertNil(result.verdict.violationCounts[.calledUnderLock], "\(target.name) seed \(seed): \(result.verdict.violations.prefix(3))")
                XCTAssertGreaterThan(
                    result.verdict.checks["user code never called under the system's locks"] ?? 0, 0,
                    "the rule was checked")
            }
        }
    }
}
