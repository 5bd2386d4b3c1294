import Foundation
import GuardCore
import XCTest

/// The NSObject backend's platform-free half, driven directly (without a controller) over the simulated Foundation:
/// trampoline lifetimes, exactly-once removal, the sentinel, and deallocation of the observed object.
final class TrampolineBackendTests: XCTestCase {
    /// A receiver that records what the backend hands it.
    final class RecordingReceiver: ObservationReceiver, @unchecked Sendable {
        private let lock = NSLock()
        private var changes: [KeyValueChange] = []
        private var deinitNotices = 0

        func receive(_ change: KeyValueChange, of object: AnyObject) {
            lock.withLock { changes.append(change) }
        }

        func observedObjectDidDeinit() {
            lock.withLock { deinitNotices += 1 }
        }

        func observedKeyPathBecameUnavailable() {}

        var received: [KeyValueChange] { lock.withLock { changes } }
        var objectDeinitNotices: Int { lock.withLock { deinitNotices } }
    }

    /// Counts how often a sentinel is attached.
    struct CountingPlatform: TrampolinePlatform {
        let base = SimulatedPlatform()
        let attachments = ConformanceValueBox<Int>()

        func canObserve(_ object: AnyObject, forKeyPath keyPath: String) -> Bool { base.canObserve(object, forKeyPath: keyPath) }
        func currentValue(of object: AnyObject, forKeyPath keyPath: String) -> Any? {
            base.currentValue(of: object, forKeyPath: keyPath)
        }
        func sentinel(of object: AnyObject) -> ObservedObjectSentinel? { base.sentinel(of: object) }
        func attach(_ sentinel: ObservedObjectSentinel, to object: AnyObject) {
            attachments.increment()
            base.attach(sentinel, to: object)
        }
        func makeTrampoline(forwardingTo registration: TrampolineRegistration) -> AnyObject {
            base.makeTrampoline(forwardingTo: registration)
        }
        func addObserver(
            _ trampoline: AnyObject, to object: AnyObject, forKeyPath keyPath: String,
            options: KeyValueObservingOptions, context: UnsafeMutableRawPointer
        ) {
            base.addObserver(trampoline, to: object, forKeyPath: keyPath, options: options, context: context)
        }
        func removeObserver(
            _ trampoline: AnyObject, from object: AnyObject, forKeyPath keyPath: String,
            context: UnsafeMutableRawPointer
        ) {
            base.removeObserver(trampoline, from: object, forKeyPath: keyPath, context: context)
        }
    }

    private let backend = TrampolineBackend(platform: SimulatedPlatform())

    override func setUp() {
        SimulatedFoundation.reset()
    }

    override func tearDown() {
        XCTAssertEqual(SimulatedFoundation.misuses, [], "a misuse reached the simulated Foundation")
    }

    func testEachRegistrationHasItsOwnTrampolineAndContextAndIsRemovedExactlyOnce() throws {
        let model = SimulatedConformanceModel()
        let receiver = RecordingReceiver()
        let first = try XCTUnwrap(
            backend.addObserver(receiver, to: model, forKeyPath: "age", options: .new, context: nil, dropsWithObject: false)
                as? TrampolineRegistration)
        let second = try XCTUnwrap(
            backend.addObserver(receiver, to: model, forKeyPath: "age", options: .new, context: nil, dropsWithObject: false)
                as? TrampolineRegistration)
        XCTAssertNotEqual(first.context, second.context)
        XCTAssertEqual(model.observanceCount, 2)
        model.age = 1
        XCTAssertEqual(receiver.received.count, 2)
        backend.removeObservation(first, from: model)
        backend.removeObservation(first, from: model)
        XCTAssertEqual(model.observanceCount, 1, "removed once, and only its own registration")
        XCTAssertTrue(first.hasEnded)
        XCTAssertFalse(second.hasEnded)
        model.age = 2
        XCTAssertEqual(receiver.received.count, 3)
        backend.removeObservation(second, from: model)
        XCTAssertEqual(model.observanceCount, 0)
        XCTAssertEqual(backend.registrationCount(on: model), 0)
    }

    func testTheTrampolineLivesExactlyAsLongAsTheRegistration() throws {
        let model = SimulatedConformanceModel()
        let receiver = RecordingReceiver()
        let registration = try XCTUnwrap(
            backend.addObserver(receiver, to: model, forKeyPath: "name", options: [], context: nil, dropsWithObject: false)
                as? TrampolineRegistration)
        let trampoline = ConformanceWeak(registration.trampoline)
        XCTAssertNotNil(trampoline.object, "held by the object's sentinel while registered")
        backend.removeObservation(registration, from: model)
        XCTAssertNil(trampoline.object, "released once the platform removed it")
    }

    func testARegistrationIsNeverRemovedFromAnotherObject() throws {
        let model = SimulatedConformanceModel()
        let other = SimulatedConformanceModel()
        let registration = try XCTUnwrap(
            backend.addObserver(RecordingReceiver(), to: model, forKeyPath: "age", options: [], context: nil, dropsWithObject: false))
        _ = backend.addObserver(RecordingReceiver(), to: other, forKeyPath: "age", options: [], context: nil, dropsWithObject: false)
        backend.removeObservation(registration, from: other)
        XCTAssertEqual(model.observanceCount, 1)
        XCTAssertEqual(other.observanceCount, 1)
        backend.removeObservation(registration, from: model)
        XCTAssertEqual(model.observanceCount, 0)
    }

    func testInitialIsNeverAskedOfThePlatformAndTheCurrentValueIsReadQuietly() {
        let model = SimulatedConformanceModel()
        model.name = "now"
        let receiver = RecordingReceiver()
        let registration = backend.addObserver(
            receiver, to: model, forKeyPath: "name", options: [.initial, .new], context: nil, dropsWithObject: false)
        XCTAssertNotNil(registration)
        XCTAssertEqual(receiver.received.count, 0, "the guard delivers .initial itself, after the registration exists")
        XCTAssertEqual(backend.currentValue(of: model, forKeyPath: "name") as? String, "now")
        XCTAssertNil(backend.currentValue(of: model, forKeyPath: "noSuchKey"))
        XCTAssertNil(backend.currentValue(of: NSObject(), forKeyPath: "name"))
        model.name = "later"
        XCTAssertEqual(receiver.received.map { $0.newValue(as: String.self) }, ["later"])
    }

    func testDeallocationEndsTheRegistrationsTellsWeakOnesAndNeverMessagesTheObject() throws {
        var model: SimulatedConformanceModel? = SimulatedConformanceModel()
        let weakReceiver = RecordingReceiver()
        let strongReceiver = RecordingReceiver()
        let dropping = try XCTUnwrap(
            backend.addObserver(weakReceiver, to: model!, forKeyPath: "age", options: .new, context: nil, dropsWithObject: true)
                as? TrampolineRegistration)
        let keeping = try XCTUnwrap(
            backend.addObserver(strongReceiver, to: model!, forKeyPath: "name", options: .new, context: nil, dropsWithObject: false)
                as? TrampolineRegistration)
        let trampoline = ConformanceWeak(dropping.trampoline)
        model = nil
        XCTAssertTrue(dropping.hasEnded)
        XCTAssertTrue(keeping.hasEnded)
        XCTAssertEqual(weakReceiver.objectDeinitNotices, 1)
        XCTAssertEqual(strongReceiver.objectDeinitNotices, 0, "only registrations added with dropsWithObject are told")
        XCTAssertNil(trampoline.object, "released with the sentinel")
        // A removal that comes late (the guard lost the race with the deallocation) finds nothing to do.
        backend.removeObservation(dropping, from: SimulatedConformanceModel())
    }

    func testOneSentinelPerObjectWhenManyThreadsObserveAFreshObjectAtOnce() {
        let platform = CountingPlatform()
        let backend = TrampolineBackend(platform: platform)
        let model = SimulatedConformanceModel()
        let queues = 16
        let barrier = ConformanceBarrier(parties: queues)
        let group = DispatchGroup()
        let receiver = RecordingReceiver()
        let observations = ConformanceValueBox<[any BackendHandle]>()
        for index in 0..<queues {
            DispatchQueue(label: "trampoline.sentinel-\(index)").async(group: group) {
                barrier.arriveAndWait()
                let observation = backend.addObserver(
                    receiver, to: model, forKeyPath: "age", options: [], context: nil, dropsWithObject: false)
                observations.append(observation)
            }
        }
        barrier.release()
        XCTAssertEqual(group.wait(timeout: .now() + 30), .success)
        XCTAssertEqual(platform.attachments.value, 1)
        XCTAssertEqual(backend.registrationCount(on: model), queues)
        for observation in observations.value ?? [] { backend.removeObservation(observation, from: model) }
        XCTAssertEqual(model.observanceCount, 0)
    }

    func testDeliveriesAfterTheEndOrWithAForeignContextAreDropped() throws {
        let model = SimulatedConformanceModel()
        let receiver = RecordingReceiver()
        let registration = try XCTUnwrap(
            backend.addObserver(receiver, to: model, forKeyPath: "age", options: .new, context: nil, dropsWithObject: false)
                as? TrampolineRegistration)
        var foreign = 0
        registration.deliver(context: &foreign, of: model) { _ in nil }
        XCTAssertEqual(receiver.received.count, 0, "a context that is not the registration's")
        registration.deliver(context: registration.context, of: model) { $0 == .new ? 7 : nil }
        XCTAssertEqual(receiver.received.map { $0.newValue(as: Int.self) }, [7])
        backend.removeObservation(registration, from: model)
        registration.deliver(context: registration.context, of: model) { $0 == .new ? 8 : nil }
        XCTAssertEqual(receiver.received.count, 1, "a callout that was already under way when the removal began")
    }
}

extension ConformanceValueBox where Value == [any BackendHandle] {
    func append(_ observation: (any BackendHandle)?) {
        guard let observation else { return }
        mutate { $0 = ($0 ?? []) + [observation] }
    }
}
