import Foundation
import GuardCore
import XCTest

/// Behind any backend but GuardCore's own runtime, the guard talks to observed objects only through
/// `KeyValueObservingBackend`; these tests put a recording fake behind it (no GuardCore runtime involved) to pin down
/// exactly what the guard asks of a backend.
final class GuardBackendTests: XCTestCase {
    /// A backend that records every call and delivers changes only when told to.
    final class RecordingBackend: KeyValueObservingBackend, @unchecked Sendable {
        final class Observation: BackendHandle, @unchecked Sendable {
            let keyPath: String
            weak var receiver: (any ObservationReceiver)?
            init(keyPath: String, receiver: any ObservationReceiver) {
                self.keyPath = keyPath
                self.receiver = receiver
            }
        }

        private let lock = NSLock()
        private(set) var calls: [String] = []
        private var live: [Observation] = []
        var observableKeys: Set<String> = ["name"]

        func canObserve(_ object: AnyObject, forKeyPath keyPath: String) -> Bool {
            lock.withLock { calls.append("can \(keyPath)") }
            return observableKeys.contains(keyPath)
        }

        func addObserver(
            _ receiver: any ObservationReceiver, to object: AnyObject, forKeyPath keyPath: String,
            options: KeyValueObservingOptions, context: UnsafeMutableRawPointer?, dropsWithObject: Bool
        ) -> (any BackendHandle)? {
            lock.withLock {
                calls.append("add \(keyPath) drops:\(dropsWithObject)" + (options.contains(.initial) ? " initial" : ""))
            }
            let observation = Observation(keyPath: keyPath, receiver: receiver)
            lock.withLock { live.append(observation) }
            return observation
        }

        func removeObservation(_ observation: any BackendHandle, from object: AnyObject) {
            let observation = observation as! Observation
            lock.withLock {
                calls.append("remove \(observation.keyPath)")
                live.removeAll { $0 === observation }
            }
        }

        func currentValue(of object: AnyObject, forKeyPath keyPath: String) -> Any? {
            lock.withLock { calls.append("value \(keyPath)") }
            return "initial"
        }

        /// Sends a change to every live registration for `keyPath`, as a backend does on a set.
        func change(_ keyPath: String, of object: AnyObject, to value: String) {
            let targets = lock.withLock { live.filter { $0.keyPath == keyPath } }
            for target in targets {
                target.receiver?.receive(KeyValueChange(kind: .setting, keyPath: keyPath, newValue: value), of: object)
            }
        }

        var liveCount: Int { lock.withLock { live.count } }
    }

    final class Owner: @unchecked Sendable {
        let lock = NSLock()
        var values: [String] = []
    }

    func testAnUnobservableKeyPathNeverReachesAddObserver() {
        let backend = RecordingBackend()
        let sink = CountingSink()
        let owner = Owner()
        let controller = ObservationController(observer: owner, backend: backend, diagnosticSink: sink)
        let object = NSObject()
        XCTAssertEqual(controller.observe(object: object, keyPath: "missing") { _, _, _ in }, .invalid(.unobservableKeyPath))
        XCTAssertEqual(backend.calls, ["can missing"])
        XCTAssertEqual(controller.registrationCount, 0)
        XCTAssertEqual(sink.events.map(\.invalidArgument), [.unobservableKeyPath])
    }

    func testTheGuardLogicRunsOnAnyBackend() {
        let backend = RecordingBackend()
        let sink = CountingSink()
        let owner = Owner()
        let object = NSObject()
        do {
            let controller = ObservationController(
                observer: owner, retainsObservedObjects: false, backend: backend, diagnosticSink: sink)
            let handler: @Sendable (Owner, AnyObject, KeyValueChange) -> Void = { owner, _, change in
                owner.lock.withLock { owner.values.append(change.newValue(as: String.self) ?? "?") }
            }
            XCTAssertEqual(controller.observe(object: object, keyPath: "name", options: [.initial, .new], handler: handler), .registered)
            XCTAssertEqual(controller.observe(object: object, keyPath: "name", options: [.new], handler: handler), .duplicate)
            backend.change("name", of: object, to: "Ada")
            XCTAssertEqual(controller.unobserve(object, keyPath: "name"), .removed)
            backend.change("name", of: object, to: "late")
            XCTAssertEqual(controller.unobserve(object, keyPath: "name"), .alreadyRemoved)
            XCTAssertEqual(controller.observe(object: object, keyPath: "name", handler: handler), .registered)
        }
        // The controller is gone: its deinit removed the last registration.
        XCTAssertEqual(backend.liveCount, 0)
        XCTAssertEqual(owner.values, ["initial", "Ada"])
        XCTAssertEqual(
            backend.calls,
            [
                // The guard registers first (never asking the backend for `.initial`), then reads the initial value.
                "can name", "add name drops:true", "value name", "can name", "remove name", "can name",
                "add name drops:true", "remove name",
            ])
        XCTAssertEqual(sink.events.map(\.kind), [.duplicateObservation, .doubleRemoval])
    }
}
