import Foundation
@testable import GuardCore
import XCTest

// An object that asks to be observed from its own deinit: the guard refuses with `.invalid(.objectDeinitializing)`,
// whether its controller holds observed objects strongly (a registration that kept the object would outlive its
// deinit, and Swift stops the process: "deallocated with non-zero retain count") or weakly, and through tokens and
// streams alike.

/// A model that runs `onDeinit` with itself in its deinit.
final class DeinitObservingModel: KVOObject, @unchecked Sendable {
    @Observed var level = 0
    private let onDeinit: @Sendable (DeinitObservingModel) -> Void

    init(onDeinit: @escaping @Sendable (DeinitObservingModel) -> Void) {
        self.onDeinit = onDeinit
    }

    deinit {
        onDeinit(self)
    }
}

/// The same over the simulated Foundation KVO: an object that is no ``KVOObject``, observed through another backend.
final class SimulatedDeinitObservingModel: SimulatedKVOObject, @unchecked Sendable {
    private let onDeinit: @Sendable (SimulatedDeinitObservingModel) -> Void

    init(onDeinit: @escaping @Sendable (SimulatedDeinitObservingModel) -> Void) {
        self.onDeinit = onDeinit
    }

    deinit {
        onDeinit(self)
    }

    override func value(forKey key: String) -> Any? { key == "level" ? 0 : nil }
    override func knowsKey(_ key: String) -> Bool { key == "level" }
}

/// What one observe from inside a deinit did.
struct ObserveInDeinitOutcome: Equatable, CustomStringConvertible {
    var result: String
    var handlerCalls: Int
    var registrationsAfterDeinit: Int
    var invalidArguments: [GuardDiagnostic.InvalidArgument?]
    var runtimeMisuses: Int
    var leftObservances: Int

    /// Refused as an invalid argument of kind `objectDeinitializing`, and nothing left behind.
    static let refused = ObserveInDeinitOutcome(
        result: "\(ObserveResult.invalid(.objectDeinitializing))", handlerCalls: 0, registrationsAfterDeinit: 0,
        invalidArguments: [.objectDeinitializing], runtimeMisuses: 0, leftObservances: 0)

    var description: String {
        "result \(result), handler calls \(handlerCalls), registrations \(registrationsAfterDeinit), invalid "
            + "arguments \(invalidArguments), runtime misuses \(runtimeMisuses), observances left \(leftObservances)"
    }
}

/// The ways of asking to be observed from a deinit, by name (the child process is told one by name).
enum ObserveInDeinitScenario: String, CaseIterable {
    case strongController = "strong-controller"
    case strongControllerOverAnotherBackend = "strong-controller-over-another-backend"
    case strongControllerOfANonKVOObject = "strong-controller-of-a-non-kvo-object"
    case weakController = "weak-controller"
    case weakControllerOfANonKVOObject = "weak-controller-of-a-non-kvo-object"

    /// Whether the process survives this scenario without the guard's refusal (a weak controller keeps nothing).
    var survivesWithoutTheCheck: Bool {
        switch self {
        case .weakController, .weakControllerOfANonKVOObject: return true
        default: return false
        }
    }

    /// Makes a model whose deinit asks a controller to observe it with `.initial`, releases it, and reports.
    func run() -> ObserveInDeinitOutcome {
        let observer = GuardTestObserver()
        let sink = CountingSink()
        let retains: Bool
        let backend: any KeyValueObservingBackend
        switch self {
        case .strongController: (retains, backend) = (true, AutomaticBackend())
        case .strongControllerOverAnotherBackend: (retains, backend) = (true, WrappedRuntimeBackend())
        case .strongControllerOfANonKVOObject: (retains, backend) = (true, TrampolineBackend(platform: SimulatedPlatform()))
        case .weakController: (retains, backend) = (false, AutomaticBackend())
        case .weakControllerOfANonKVOObject: (retains, backend) = (false, TrampolineBackend(platform: SimulatedPlatform()))
        }
        let controller = ObservationController(
            observer: observer, retainsObservedObjects: retains, backend: backend, diagnosticSink: sink)
        let results = LockedBox<[String]>([])
        let calls = LockedBox(0)
        let baseline = liveObservances
        let misuses = recordingMisuse {
            switch self {
            case .strongControllerOfANonKVOObject, .weakControllerOfANonKVOObject:
                SimulatedFoundation.reset()
                _ = SimulatedDeinitObservingModel { model in
                    let result = controller.observe(object: model, keyPath: "level", options: [.initial]) { _, _, _ in
                        calls.value += 1
                    }
                    results.value.append("\(result)")
                }
                results.value += SimulatedFoundation.misuses
            default:
                _ = DeinitObservingModel { model in
                    let result = controller.observe(model, keyPath: "level", options: [.initial]) { _, _, _ in
                        calls.value += 1
                    }
                    results.value.append("\(result)")
                }
            }
        }
        return ObserveInDeinitOutcome(
            result: results.value.joined(separator: ", "), handlerCalls: calls.value,
            registrationsAfterDeinit: controller.registrationCount, invalidArguments: sink.events.map(\.invalidArgument),
            runtimeMisuses: misuses.count, leftObservances: liveObservances - baseline)
    }
}

/// The environment variable that names the scenario ``ObserveInDeinitChildTests`` runs.
private let observeInDeinitScenarioVariable = "KVOGUARD_OBSERVE_IN_DEINIT_SCENARIO"

/// Runs one scenario: the one named by `KVOGUARD_OBSERVE_IN_DEINIT_SCENARIO` in a child process started by
/// ``GuardObserveInObjectDeinitTests`` (a scenario that, unguarded, stops the process), otherwise the weak
/// controller's, which never stops it. Either way it checks the refusal.
final class ObserveInDeinitChildTests: XCTestCase {
    func testObserveFromTheObjectsDeinit() throws {
        let name = ProcessInfo.processInfo.environment[observeInDeinitScenarioVariable]
        let scenario = try XCTUnwrap(ObserveInDeinitScenario(rawValue: name ?? "weak-controller"), name ?? "")
        print("SCENARIO-START \(scenario.rawValue)")
        fflush(nil)
        let outcome = scenario.run()
        print("SCENARIO-OUTCOME \(outcome)")
        fflush(nil)
        XCTAssertEqual(outcome, .refused)
    }
}

final class GuardObserveInObjectDeinitTests: XCTestCase {
    #if os(Linux)
    /// Runs `scenario` in a child process: it must exit cleanly (no abort), refused as `objectDeinitializing`.
    private func assertRefusedInAChild(_ scenario: ObserveInDeinitScenario, line: UInt = #line) throws {
        let child = try ChildTestProcess(
            test: "GuardCoreTests.ObserveInDeinitChildTests/testObserveFromTheObjectsDeinit",
            environment: [observeInDeinitScenarioVariable: scenario.rawValue]
        ).run()
        XCTAssertTrue(child.exitedCleanly, child.transcript, line: line)
        XCTAssertTrue(child.standardOutput.contains("SCENARIO-START \(scenario.rawValue)"), child.transcript, line: line)
        XCTAssertTrue(
            child.standardOutput.contains("SCENARIO-OUTCOME \(ObserveInDeinitOutcome.refused)"), child.transcript,
            line: line)
    }

    func testAStrongControllerRefusesAnObjectInItsDeinitWithoutStoppingTheProcess() throws {
        try assertRefusedInAChild(.strongController)
    }

    func testAStrongControllerOverAnotherBackendRefusesAnObjectInItsDeinit() throws {
        try assertRefusedInAChild(.strongControllerOverAnotherBackend)
    }

    func testAStrongControllerRefusesANonKVOObjectInItsDeinit() throws {
        try assertRefusedInAChild(.strongControllerOfANonKVOObject)
    }
    #endif

    /// The scenarios that cannot stop the process run here too.
    func testAWeakControllerRefusesAnObjectInItsDeinit() {
        XCTAssertTrue(ObserveInDeinitScenario.weakController.survivesWithoutTheCheck)
        XCTAssertEqual(ObserveInDeinitScenario.weakController.run(), .refused)
    }

    func testAWeakControllerRefusesANonKVOObjectInItsDeinit() {
        XCTAssertEqual(ObserveInDeinitScenario.weakControllerOfANonKVOObject.run(), .refused)
    }

    // The tests below use controllers that hold objects weakly: without the refusal they fail, rather than stop the
    // whole test process.

    /// Several key paths at once: one refusal (and one event) per key path.
    func testObservingSeveralKeyPathsInItsDeinitRefusesEach() {
        let observer = GuardTestObserver()
        let (sink, controller) = makeController(for: observer, retainsObservedObjects: false)
        let results = LockedBox<[ObserveResult]>([])
        _ = DeinitObservingModel { model in
            results.value = controller.observe(model, keyPaths: ["level", "level"]) { _, _, _ in }
        }
        XCTAssertEqual(results.value, [.invalid(.objectDeinitializing), .invalid(.objectDeinitializing)])
        XCTAssertEqual(sink.events.map(\.invalidArgument), [.objectDeinitializing, .objectDeinitializing])
        XCTAssertEqual(controller.registrationCount, 0)
    }

    /// The event names the object, its key path and the call site, and reads as the other invalid arguments do.
    func testTheEventNamesTheObjectAndSaysWhy() throws {
        let observer = GuardTestObserver()
        let (sink, controller) = makeController(for: observer, retainsObservedObjects: false)
        let address = LockedBox<UInt>(0)
        let line = LockedBox<UInt>(0)
        _ = DeinitObservingModel { model in
            address.value = UInt(bitPattern: ObjectIdentifier(model))
            line.value = #line + 1
            controller.observe(model, \.level) { _, _, _ in }
        }
        XCTAssertEqual(sink.events.count, 1)
        let event = try XCTUnwrap(sink.events.first)
        XCTAssertEqual(event.kind, .invalidArgument)
        XCTAssertEqual(event.invalidArgument, .objectDeinitializing)
        XCTAssertEqual(event.objectType, "DeinitObservingModel")
        XCTAssertEqual(event.objectAddress, address.value)
        XCTAssertEqual(event.keyPath, "level")
        XCTAssertEqual(event.callSite.line, line.value)
        XCTAssertTrue(
            event.description.hasPrefix("KVOGuard: invalid argument (object is running its deinit): observer "),
            event.description)
    }

    /// The same object, alive, is observed as usual: the refusal is about the deinit, not the object.
    func testTheObjectIsObservedAsUsualBeforeItsDeinit() {
        let observer = GuardTestObserver()
        let (sink, controller) = makeController(for: observer, retainsObservedObjects: false)
        let inDeinit = LockedBox<[ObserveResult]>([])
        do {
            let model = DeinitObservingModel { model in
                inDeinit.value.append(controller.observe(model, keyPath: "level") { _, _, _ in })
            }
            XCTAssertEqual(controller.observe(model, keyPath: "level") { _, _, _ in }, .registered)
            XCTAssertEqual(controller.unobserve(model, keyPath: "level"), .removed)
        }
        XCTAssertEqual(inDeinit.value, [.invalid(.objectDeinitializing)])
        XCTAssertEqual(sink.events.map(\.invalidArgument), [.objectDeinitializing])
    }

    /// A token asked for from the object's deinit (`guardedObserve` holds the object weakly) is invalid and inactive,
    /// and never calls its handler.
    func testATokenAskedForInItsDeinitIsInvalid() {
        let tokens = LockedBox<[ObservationToken]>([])
        let calls = LockedBox(0)
        let misuses = recordingMisuse {
            _ = DeinitObservingModel { model in
                tokens.value.append(model.guardedObserve(\.level, options: [.initial]) { _, _ in calls.value += 1 })
                tokens.value.append(model.guardedObserve(keyPath: "level", options: [.initial]) { _, _ in calls.value += 1 })
            }
        }
        XCTAssertEqual(tokens.value.map(\.result), [.invalid(.objectDeinitializing), .invalid(.objectDeinitializing)])
        XCTAssertEqual(tokens.value.map(\.isActive), [false, false])
        XCTAssertEqual(calls.value, 0)
        XCTAssertEqual(misuses, [])
        tokens.value.forEach { $0.invalidate() }
    }

    /// A stream's iterator made in the object's deinit yields nothing and ends at once.
    func testAStreamIteratedFromItsDeinitIsEmpty() async {
        let iterators = LockedBox<[ObservedValues<Int>.AsyncIterator]>([])
        _ = DeinitObservingModel { model in
            iterators.value.append(model.values(of: \.level).makeAsyncIterator())
        }
        guard var iterator = iterators.value.first else { return XCTFail("no iterator") }
        iterators.value = []
        let first = await iterator.next()
        XCTAssertNil(first)
    }
}
