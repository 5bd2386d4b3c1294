@testable import FaultInjector
import FaultInjectorTestSupport
import Foundation
import GuardCore
import XCTest

/// The token API and the guard on another object model, each under the full oracle.
final class TokenAndMirroredTargetTests: XCTestCase {
    /// A GuardCore-runtime twin: the same `MirroredGuardTarget` machinery that runs the guard on `NSObject`s on Apple
    /// platforms, checked here with twins every platform has.
    struct RuntimeTwinModel: StressTwinModel {
        final class Twin: KVOObject, @unchecked Sendable {
            private let state: StressTwinState

            init(state: StressTwinState) {
                self.state = state
            }

            override func value(forKey key: String) -> Any? {
                guard let stressKey = StressKey(name: key) else { return super.value(forKey: key) }
                return state.value(of: stressKey)
            }

            override class func keyPathsForValuesAffectingValue(forKey key: String) -> Set<String> {
                key == "sum" ? ["k0", "k1"] : super.keyPathsForValuesAffectingValue(forKey: key)
            }
        }

        let name = "runtime-twin"

        func makeBackend() -> any KeyValueObservingBackend { KVORuntimeBackend() }
        func makeTwin(reading state: StressTwinState) -> AnyObject { Twin(state: state) }
        func willChange(_ key: StressKey, of twin: AnyObject) { (twin as? Twin)?.willChangeValue(forKey: key.name) }
        func didChange(_ key: StressKey, of twin: AnyObject) { (twin as? Twin)?.didChangeValue(forKey: key.name) }
    }

    private func configuration(workers: Int = 16, operations: Int = 200) -> ScenarioConfiguration {
        var configuration = RunFixtures.configuration(workers: workers, operations: operations)
        // Handler actions up from the default 30 %: unobserve (the token's invalidate inside its own handler), release
        // the controller (the token table and its tokens), mutate and observe from inside the handler.
        configuration.actions.none = 30
        return configuration
    }

    func testTheTokenAPIPassesTheOracle() {
        for seed in [41, 42, 43] as [UInt64] {
            let sink = CountingSink()
            let result = ChaosRunner().runAndEvaluate(
                Scenario(configuration: configuration(), seed: seed), against: TokenTarget(diagnostics: sink))
            XCTAssertTrue(
                result.passed,
                "seed \(seed): \(result.verdict.signature): \(result.verdict.violations.prefix(3).map(\.message))")
            XCTAssertEqual(result.targetName, "token")
            XCTAssertGreaterThan(result.verdict.deliveries, 0)
            XCTAssertGreaterThan(result.verdict.checks["initial exactly once", default: 0], 0)
            XCTAssertGreaterThan(result.verdict.checks["observe/unobserve results linearizable", default: 0], 0)
            XCTAssertEqual(sink.total, 0, "tokens report nothing for valid observations")
        }
    }

    func testTheTokenTargetAnswersLikeTheGuard() {
        let call = StressCall(operation: 1)
        let observer = StressObserver(id: 1) { _ in }
        let controller = TokenTarget(diagnostics: CountingSink()).makeController(
            for: observer, retainsObjects: true, diagnostics: CountingSink())
        let object = StressObject(id: 2)
        final class Sink: DeliverySink, @unchecked Sendable {
            let lock = NSLock()
            var values: [Int?] = []
            func deliver(observer: StressObserver?, object: StressObject, change: KeyValueChange) {
                lock.withLock { values.append(change.newValue(as: Int.self)) }
            }
        }
        let sink = Sink()
        let misuses = RuntimeMonitor.withMisusePolicy(.report) { () -> Int in
            RuntimeMonitor.resetMisuseRecords()
            XCTAssertEqual(controller.observe(object, keyPath: "k0", options: [.initial, .new], sink: sink, call: call), .registered)
            XCTAssertEqual(controller.observe(object, keyPath: "k0", options: [.new], sink: sink, call: call), .duplicate)
            object.k0 = 5
            XCTAssertEqual(controller.unobserve(object, keyPath: "k0", call: call), .removed)
            object.k0 = 6
            XCTAssertEqual(controller.unobserve(object, keyPath: "k0", call: call), .alreadyRemoved)
            XCTAssertEqual(controller.unobserve(object, keyPath: "k1", call: call), .notRegistered)
            XCTAssertEqual(controller.unobserve(object, call: call), .alreadyRemoved)
            XCTAssertEqual(controller.observe(object, keyPath: "sum", options: [.new], sink: sink, call: call), .registered)
            object.k1 = 2
            XCTAssertEqual(controller.unobserve(object, call: call), .removed)
            XCTAssertEqual(controller.unobserve(StressObject(id: 3), call: call), .notRegistered)
            controller.unobserveAll(call: call)
            return RuntimeMonitor.misuseCount
        }
        XCTAssertEqual(misuses, 0)
        XCTAssertEqual(sink.values, [0, 5, 8], "the initial k0, k0's change, then sum = 6 + 2")
        XCTAssertEqual(object.observationCount, 0)
        withExtendedLifetime(observer) {}
    }

    func testTheGuardOnMirroredTwinsPassesTheOracle() {
        for seed in [51, 52] as [UInt64] {
            let target = MirroredGuardTarget(model: RuntimeTwinModel(), diagnostics: CountingSink(keepsEvents: false))
            let result = ChaosRunner().runAndEvaluate(Scenario(configuration: configuration(), seed: seed), against: target)
            XCTAssertTrue(
                result.passed,
                "seed \(seed): \(result.verdict.signature): \(result.verdict.violations.prefix(3).map(\.message))")
            XCTAssertEqual(result.targetName, "runtime-twin")
            XCTAssertGreaterThan(result.verdict.checks["notification values", default: 0], 0)
            XCTAssertGreaterThan(result.verdict.checks["one notification per change and registration", default: 0], 0)
        }
    }

    func testATwinCarriesItsObjectsOldAndNewValuesAndDiesWithIt() {
        let call = StressCall(operation: 1)
        let target = MirroredGuardTarget(model: RuntimeTwinModel(), diagnostics: CountingSink())
        let observer = StressObserver(id: 1) { _ in }
        let controller = target.makeController(
            for: observer, retainsObjects: false, diagnostics: CountingSink())
        final class Sink: DeliverySink, @unchecked Sendable {
            let lock = NSLock()
            var changes: [String] = []
            func deliver(observer: StressObserver?, object: StressObject, change: KeyValueChange) {
                let text = "\(change.keyPath)\(change.isPrior ? " prior" : ""): \(change.oldValue(as: Int.self) ?? -1) → \(change.newValue(as: Int.self) ?? -1) of \(object.id)"
                lock.withLock { changes.append(text) }
            }
        }
        let sink = Sink()
        var object: StressObject? = StressObject(id: 7)
        let baseline = RuntimeMonitor.liveObservanceCount
        XCTAssertEqual(controller.observe(object!, keyPath: "sum", options: [.old, .new, .prior], sink: sink, call: call), .registered)
        object?.k0 = 2
        object?.k1 = 3
        object?.k2 = 9
        XCTAssertEqual(sink.changes, ["sum prior: 0 → -1 of 7", "sum: 0 → 2 of 7", "sum prior: 2 → -1 of 7", "sum: 2 → 5 of 7"])
        object = nil
        XCTAssertEqual(RuntimeMonitor.liveObservanceCount, baseline, "the twin and every registration went with the object")
        withExtendedLifetime(observer) {}
        withExtendedLifetime(controller) {}
    }

    /// A token table that goes (its observer released) ends its slots in the order they were reserved, never in its
    /// dictionary's order (object addresses): a slot may hold the last reference to its object, whose deinit must
    /// come at the same step in every run, so the same controlled run repeats exactly. (Released in the dictionary's
    /// order, these seeds took another schedule in about every other run.)
    func testTheSameControlledTokenRunRepeatsWhenTokenTablesGo() throws {
        var configuration = ScenarioProfile.teardown.configuration()
        configuration.workers = 4
        configuration.operationsPerWorker = 30
        for seed: UInt64 in [1, 3, 8, 37] {
            let scenario = Scenario(configuration: configuration, seed: seed)
            let first = ControlledRunner(settings: ControlledFixtures.settings(.random))
                .runAndEvaluate(scenario, against: TokenTarget(diagnostics: CountingSink(keepsEvents: false)))
            for _ in 0..<4 {
                let again = ControlledRunner(settings: ControlledFixtures.settings(.random))
                    .runAndEvaluate(scenario, against: TokenTarget(diagnostics: CountingSink(keepsEvents: false)))
                XCTAssertTrue(again.recording.controlled?.schedule == first.recording.controlled?.schedule, "seed \(seed)")
                XCTAssertEqual(again.history.digest, first.history.digest, "seed \(seed)")
            }
        }
    }
}
