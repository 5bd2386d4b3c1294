import Foundation
import GuardCore
import XCTest

/// A backend may do what its protocol allows in ways the guard's own backends never do: learn of an object's deinit
/// late (a backend for plain Swift objects can often only find dead objects later), name an object of its own in
/// a notification, or report a deinit while its `addObserver` is still running. The guard's promises hold anyway.
final class GuardUntrustedBackendTests: XCTestCase {
    private let owner = UntrustedOwner()

    /// A controller holding its objects weakly, in front of a backend that reports deinits only when told.
    private func controllerOverALateBackend() -> (UntrustedBackend, CountingSink, ObservationController<UntrustedOwner>) {
        let backend = UntrustedBackend()
        backend.reportsDeinitsLate = true
        let sink = CountingSink()
        let controller = ObservationController(
            observer: owner, retainsObservedObjects: false, backend: backend, diagnosticSink: sink)
        return (backend, sink, controller)
    }

    func testANewObjectAtAGoneObjectsAddressIsNotTakenForIt() {
        let (backend, sink, controller) = controllerOverALateBackend()

        var first: UntrustedThing? = UntrustedThing(backend)
        let firstAddress = ObjectIdentifier(first!)
        XCTAssertEqual(controller.observe(object: first, keyPath: "name") { _, _, _ in }, .registered)
        first = nil
        // Allocate until one lands at the dead object's address (malloc hands a freed block back quickly; a
        // sanitizer's allocator may not, and then this is only a second object, which must be just as new).
        var tried: [UntrustedThing] = []
        var second = UntrustedThing(backend)
        while ObjectIdentifier(second) != firstAddress, tried.count < 10_000 {
            tried.append(second)
            second = UntrustedThing(backend)
        }

        XCTAssertFalse(controller.isObserving(second, keyPath: "name"))
        XCTAssertEqual(controller.observedKeyPaths(of: second), [])
        XCTAssertEqual(controller.unobserve(second, keyPath: "name"), .notRegistered)
        XCTAssertEqual(controller.unobserve(second), .notRegistered)
        XCTAssertEqual(controller.observe(object: second, keyPath: "name") { _, _, _ in }, .registered)
        XCTAssertEqual(controller.observedKeyPaths(of: second), ["name"])
        XCTAssertEqual(sink.events.map(\.kind), [.removalOfUnregistered, .removalOfUnregistered])
        // At the reused address the gone object's registration was taken out; elsewhere nothing touched it, and it
        // counts until the backend reports the deinit.
        let reused = ObjectIdentifier(second) == firstAddress
        XCTAssertEqual(controller.registrationCount, reused ? 1 : 2)
        XCTAssertEqual(controller.unobserve(second, keyPath: "name"), .removed)
        XCTAssertEqual(backend.removedHandles, [2], "only the new object's registration is removed from it")
    }

    func testTheGoneObjectsRegistrationsLeaveWhenTheBackendReportsTheDeinitLate() {
        let (backend, sink, controller) = controllerOverALateBackend()
        var thing: UntrustedThing? = UntrustedThing(backend)
        XCTAssertEqual(controller.observe(object: thing, keyPath: "name") { _, _, _ in }, .registered)
        XCTAssertEqual(controller.observe(object: thing, keyPath: "title") { _, _, _ in }, .registered)
        thing = nil
        XCTAssertEqual(controller.registrationCount, 2, "the backend has not reported the deinit yet")
        backend.reportDeinitsNow()
        XCTAssertEqual(controller.registrationCount, 0)
        XCTAssertEqual(sink.events.count, 0, "a weakly held object that deinitializes is no misuse")
    }

    func testAHandlerIsGivenTheObservedObjectWhateverObjectTheBackendNames() {
        let backend = UntrustedBackend()
        let controller = ObservationController(observer: owner, backend: backend, diagnosticSink: CountingSink())
        let thing = UntrustedThing(backend)
        let seen = LockedList<String>()
        XCTAssertEqual(
            controller.observe(object: thing, keyPath: "name") { _, object, change in
                seen.append("\(ObjectIdentifier(object) == ObjectIdentifier(thing)) \(change.newValue as? String ?? "-")")
            }, .registered)

        backend.deliver("name", to: thing, naming: UntrustedStranger(), newValue: "from a stranger")
        backend.deliver("name", to: thing, naming: thing, newValue: "from itself")
        XCTAssertEqual(seen.items, ["true from a stranger", "true from itself"])
    }

    func testATypedHandlerNeverGetsAnObjectOfAnotherType() {
        let backend = UntrustedBackend()
        let controller = ObservationController(
            observer: owner, retainsObservedObjects: false, backend: backend, diagnosticSink: CountingSink())
        var model: UntrustedModel? = UntrustedModel()
        let names = LockedList<String>()
        XCTAssertEqual(
            controller.observe(model, keyPath: "name") { _, model, _ in names.append(model.name) }, .registered)
        let receivers = backend.receivers(of: model!)
        XCTAssertEqual(receivers.count, 1)
        backend.deliver("name", to: model!, naming: UntrustedStranger(), newValue: "x")
        XCTAssertEqual(names.items, ["model"])

        // Once the weakly held object is gone, a late notification naming some other object reaches nobody.
        model = nil
        for receiver in receivers {
            receiver.receive(KeyValueChange(kind: .setting, keyPath: "name", newValue: "late"), of: UntrustedStranger())
        }
        XCTAssertEqual(names.items, ["model"])
    }
}

/// The same backend reporting an object's deinit from another thread while its `addObserver` runs (a backend that
/// drops registrations on a background sweep): the handle the guard keeps is never touched by two threads at once
/// (the ThreadSanitizer run checks it) and nothing is left registered.
final class UntrustedBackendConcurrencyTests: XCTestCase {
    func testADeinitReportedDuringTheAddLeavesNothingBehind() {
        let backend = UntrustedBackend()
        let owner = UntrustedOwner()
        let controller = ObservationController(
            observer: owner, retainsObservedObjects: false, backend: backend, diagnosticSink: CountingSink())
        let thing = UntrustedThing(backend)
        let initials = LockedList<Int>()
        backend.duringAdd = { receiver in
            let reported = DispatchSemaphore(value: 0)
            Thread {
                receiver.observedObjectDidDeinit()
                reported.signal()
            }.start()
            reported.wait()
        }
        for round in 0..<200 {
            let result = controller.observe(object: thing, keyPath: "k\(round % 5)", options: .initial) { _, _, _ in
                initials.append(round)
            }
            XCTAssertEqual(result, .registered)
            if round % 10 == 9 { controller.unobserveAll() }
        }
        XCTAssertEqual(initials.items, Array(0..<200), "each registered observe delivered its .initial once")
        XCTAssertEqual(controller.registrationCount, 0, "each registration was dropped as the backend reported")
        XCTAssertEqual(backend.liveCount, 0, "and the guard removed what the backend still had")
    }
}

final class UntrustedOwner: @unchecked Sendable {}

final class UntrustedStranger: @unchecked Sendable {}

/// An observable model the untrusted backend observes in place of GuardCore's runtime (which never sees it); its
/// deinit reports nothing, like a backend that learns of deinits late.
final class UntrustedModel: KVOObject, @unchecked Sendable {
    @Observed var name = "model"
}

final class UntrustedThing: @unchecked Sendable {
    let name = "thing"
    private let backend: UntrustedBackend

    init(_ backend: UntrustedBackend) {
        self.backend = backend
    }

    deinit {
        backend.objectDidDeinit(ObjectIdentifier(self))
    }
}

final class LockedList<Element: Sendable>: @unchecked Sendable {
    private let lock = NSLock()
    private var storage: [Element] = []

    func append(_ element: Element) {
        lock.withLock { storage.append(element) }
    }

    var items: [Element] {
        lock.withLock { storage }
    }
}

/// A backend that does what its protocol allows in ways GuardCore's own backends do not (see the tests above).
final class UntrustedBackend: KeyValueObservingBackend, @unchecked Sendable {
    final class Handle: BackendHandle, @unchecked Sendable {
        let number: Int
        let objectID: ObjectIdentifier
        let keyPath: String
        var receiver: (any ObservationReceiver)?

        init(number: Int, objectID: ObjectIdentifier, keyPath: String, receiver: any ObservationReceiver) {
            self.number = number
            self.objectID = objectID
            self.keyPath = keyPath
            self.receiver = receiver
        }
    }

    private let lock = NSLock()
    private var live: [Handle] = []
    private var goneObjects: [ObjectIdentifier] = []
    private var made = 0
    private var removed: [Int] = []
    /// Deinits are only noted, and reported by ``reportDeinitsNow()``.
    var reportsDeinitsLate = false
    /// Runs inside `addObserver`, after the registration is made.
    var duringAdd: (@Sendable (any ObservationReceiver) -> Void)?

    func canObserve(_ object: AnyObject, forKeyPath keyPath: String) -> Bool { true }

    func addObserver(
        _ receiver: any ObservationReceiver, to object: AnyObject, forKeyPath keyPath: String,
        options: KeyValueObservingOptions, context: UnsafeMutableRawPointer?, dropsWithObject: Bool
    ) -> (any BackendHandle)? {
        let handle = lock.withLock { () -> Handle in
            made += 1
            let handle = Handle(number: made, objectID: ObjectIdentifier(object), keyPath: keyPath, receiver: receiver)
            live.append(handle)
            return handle
        }
        duringAdd?(receiver)
        return handle
    }

    func removeObservation(_ observation: any BackendHandle, from object: AnyObject) {
        let handle = observation as! Handle
        let receiver = lock.withLock { () -> (any ObservationReceiver)? in
            guard live.contains(where: { $0 === handle }) else { return nil }
            live.removeAll { $0 === handle }
            removed.append(handle.number)
            defer { handle.receiver = nil }
            return handle.receiver
        }
        withExtendedLifetime(receiver) {}
    }

    func currentValue(of object: AnyObject, forKeyPath keyPath: String) -> Any? { "initial" }

    func objectDidDeinit(_ id: ObjectIdentifier) {
        if reportsDeinitsLate {
            lock.withLock { goneObjects.append(id) }
        } else {
            drop(objectsWith: [id])
        }
    }

    func reportDeinitsNow() {
        drop(objectsWith: lock.withLock { goneObjects })
    }

    private func drop(objectsWith ids: [ObjectIdentifier]) {
        let dropped = lock.withLock { () -> [any ObservationReceiver] in
            let mine = live.filter { ids.contains($0.objectID) }
            live.removeAll { ids.contains($0.objectID) }
            return mine.compactMap { handle in
                defer { handle.receiver = nil }
                return handle.receiver
            }
        }
        for receiver in dropped { receiver.observedObjectDidDeinit() }
    }

    /// Sends a change of `keyPath` to the receivers registered on `object`, naming `named` as the changed object.
    func deliver(_ keyPath: String, to object: AnyObject, naming named: AnyObject, newValue: String) {
        for receiver in receivers(of: object, keyPath: keyPath) {
            receiver.receive(KeyValueChange(kind: .setting, keyPath: keyPath, newValue: newValue), of: named)
        }
    }

    func receivers(of object: AnyObject, keyPath: String? = nil) -> [any ObservationReceiver] {
        let id = ObjectIdentifier(object)
        return lock.withLock {
            live.filter { $0.objectID == id && (keyPath == nil || $0.keyPath == keyPath) }.compactMap(\.receiver)
        }
    }

    var liveCount: Int { lock.withLock { live.count } }
    var removedHandles: [Int] { lock.withLock { removed } }
}
