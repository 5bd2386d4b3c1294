import Foundation
import GuardCore
import XCTest

/// The guard keeps every promise on edge inputs: no hang, no crash, no misuse reaching the runtime, and
/// `.initial` exactly once for every `.registered`, whatever other threads do.
final class GuardPromiseTests: XCTestCase {
    // MARK: Nothing user-owned is released under the controller's lock (defect 1)

    /// A handler captures the last strong reference to an object the same controller observes weakly. Dropping the
    /// registration frees the handler, which frees that object, whose deinit tells the controller to drop its own
    /// registration. Under the controller's lock this re-enters the lock: a hang in release builds, and in debug
    /// builds the error-checking mutex stops the process. Each way of dropping a registration must do the release
    /// after unlocking.
    func testDroppingAHandlerThatOwnsAWeaklyObservedObjectDoesNotReenterTheLock() {
        for way in DropWay.allCases {
            let observer = GuardTestObserver()
            let sink = CountingSink()
            var controller: ObservationController<GuardTestObserver>? = ObservationController(
                observer: observer, retainsObservedObjects: false, diagnosticSink: sink)
            let anchor = Person()
            let captive = registerCaptive(on: controller!, anchor: anchor)
            XCTAssertNotNil(captive.object, "\(way): the handler keeps the captive alive")
            XCTAssertEqual(controller!.registrationCount, 2, "\(way)")

            assertNoMisuse {
                switch way {
                case .unobserveKeyPath: XCTAssertEqual(controller!.unobserve(anchor, keyPath: "name"), .removed, "\(way)")
                case .unobserveObject: XCTAssertEqual(controller!.unobserve(anchor), .removed, "\(way)")
                case .unobserveAll: controller!.unobserveAll()
                case .controllerDeinit: controller = nil
                }
            }
            XCTAssertNil(captive.object, "\(way): the captive was released with the handler")
            if let controller {
                XCTAssertEqual(controller.registrationCount, 0, "\(way): the captive's registration went with it")
            }
            XCTAssertEqual(sink.total, 0, "\(way): nothing here is a mistake: \(sink.records)")
            XCTAssertEqual(anchor.observationCount, 0, "\(way)")
        }
    }

    private enum DropWay: CaseIterable {
        case unobserveKeyPath, unobserveObject, unobserveAll, controllerDeinit
    }

    /// Observes `anchor.name` with a handler that owns the only strong reference to a second object, which the same
    /// controller observes (weakly) too. Returns a weak reference to that object.
    private func registerCaptive(
        on controller: ObservationController<GuardTestObserver>, anchor: Person
    ) -> WeakRef<Person> {
        let captive = Person()
        XCTAssertEqual(controller.observe(captive, keyPath: "age") { _, _, _ in }, .registered)
        XCTAssertEqual(
            controller.observe(anchor, keyPath: "name") { _, _, _ in withExtendedLifetime(captive) {} }, .registered)
        return WeakRef(captive)
    }

    /// Replacing a controller's diagnostic sink releases the old sink outside the controller's lock: a sink whose
    /// deinit reads the controller's sink must not hang.
    func testReplacingASinkReleasesTheOldOneOutsideTheLock() {
        let observer = GuardTestObserver()
        let controller = ObservationController(observer: observer)
        let reentered = LockedBox(false)
        controller.diagnosticSink = ReenteringSink { [weak controller] in
            _ = controller?.diagnosticSink
            reentered.value = true
        }
        controller.diagnosticSink = CountingSink()
        XCTAssertTrue(reentered.value)
    }

    /// The same for the process-wide sink.
    func testReplacingTheProcessWideSinkReleasesTheOldOneOutsideTheLock() {
        let previous = GuardDiagnostics.sink
        defer { GuardDiagnostics.sink = previous }
        let reentered = LockedBox(false)
        GuardDiagnostics.sink = ReenteringSink {
            _ = GuardDiagnostics.sink
            reentered.value = true
        }
        GuardDiagnostics.sink = CountingSink()
        XCTAssertTrue(reentered.value)
    }

    // MARK: Dotted key paths never let a misuse reach the runtime (defect 3)

    /// `a.nope` is accepted while `a` is nil (nothing to check yet). When `a` becomes an object without `nope`, the
    /// runtime would report `unknownKey` (a trap by default) on a plain property set; through the guard the chain
    /// reads as nil, one diagnostic says why, and nothing reaches the runtime.
    func testAChainThatStopsMakingSenseIsADiagnosticNotAMisuse() {
        for options: KeyValueObservingOptions in [[], [.new], [.old, .new], [.initial, .new, .old, .prior]] {
            for retains in [true, false] {
                let observer = GuardTestObserver()
                let (sink, controller) = makeController(for: observer, retainsObservedObjects: retains)
                let root = ChainRoot()
                let log = HandlerLog()
                assertNoMisuse {
                    XCTAssertEqual(
                        controller.observe(root, keyPath: "middle.leaf", options: options, handler: log.recording("h")),
                        .registered)
                    root.middle = ChainStranger()
                    (root.middle as? ChainStranger)?.unrelated = 5
                    root.middle = ChainStranger()
                }
                let unavailable = sink.events.filter { $0.kind == .keyPathUnavailable }
                XCTAssertEqual(unavailable.count, 2, "\(options) retains=\(retains): one per broken re-wiring")
                XCTAssertEqual(unavailable.first?.keyPath, "middle.leaf")
                XCTAssertEqual(unavailable.first?.objectType, "ChainRoot")
                let changes = log.all.filter { !$0.isPrior && $0.tag == "h" }
                let expectedChanges = options.contains(.initial) ? 3 : 2
                XCTAssertEqual(changes.count, expectedChanges, "\(options): the middle key's changes still arrive")
                for call in changes where options.contains(.new) {
                    XCTAssertEqual(call.new, .nilValue, "a broken chain reads as nil")
                }
                // A middle object with the leaf key makes the chain live again.
                let node = ChainNode()
                assertNoMisuse {
                    root.middle = node
                    node.leaf = 42
                }
                let last = log.all.last
                XCTAssertEqual(last?.new, options.contains(.new) ? 42 : .absent, "\(options)")
                XCTAssertEqual(controller.unobserve(root, keyPath: "middle.leaf"), .removed)
            }
        }
    }

    /// The same when an accepted chain's middle object is replaced by one without the leaf key.
    func testReplacingAnAcceptedMiddleObjectWithAStrangerIsADiagnostic() {
        let observer = GuardTestObserver()
        let (sink, controller) = makeController(for: observer)
        let root = ChainRoot()
        root.middle = ChainNode()
        let log = HandlerLog()
        assertNoMisuse {
            XCTAssertEqual(
                controller.observe(root, keyPath: "middle.leaf", options: [.old, .new], handler: log.recording("h")),
                .registered)
            root.middle = ChainStranger()
        }
        XCTAssertEqual(sink.events.map(\.kind), [.keyPathUnavailable])
        XCTAssertEqual(log.all.map(\.new), [.nilValue])
        XCTAssertEqual(log.all.map(\.old), [0])
    }

    // MARK: Naming a typed key path never traps (defect 4)

    /// Named `node.next.value` as Foundation names it, never evaluated (the force unwraps of the nil `node` would trap);
    /// the optional chain names the same registration.
    func testAKeyPathThroughANilForceUnwrapIsRegisteredNotATrap() {
        let observer = GuardTestObserver()
        let (sink, controller) = makeController(for: observer)
        let root = ChainRoot()
        let values = LockedBox<[String]>([])
        assertNoMisuse {
            XCTAssertEqual(
                controller.observe(root, \.node!.next!.value, options: [.initial, .new]) { _, _, change in
                    values.mutate { $0.append(String(describing: change.newValue)) }
                }, .registered)
            XCTAssertEqual(controller.observe(root, \.node?.next?.value) { _, _, _ in }, .duplicate)
        }
        XCTAssertEqual(sink.events.map(\.kind), [.duplicateObservation])
        XCTAssertEqual(values.value, ["nil"], "the initial value reads as nil, nothing trapped")
        // A plain chain of @Observed properties still has its name.
        root.node = ChainNode()
        XCTAssertEqual(controller.observe(root, \.node) { _, _, _ in }, .registered)
        XCTAssertEqual(controller.observedKeyPaths(of: root), ["node", "node.next.value"])
    }

    // MARK: `.initial` exactly once for every `.registered` (defect 5)

    /// Thread A observes with `.initial`; while its registration is reserved but not yet in the runtime, thread B
    /// unobserves and gets `.removed`. A still gets `.registered`, so it must get its initial notification, on its
    /// own thread, before `observe` returns.
    func testInitialIsDeliveredEvenWhenAnotherThreadRemovesTheRegistrationMeanwhile() {
        let observer = GuardTestObserver()
        let (sink, controller) = makeController(for: observer)
        let person = Person()
        person.age = 7
        let pause = SchedulePause(at: .guardBeforeRegister)
        defer { pause.uninstall() }
        let initials = LockedBox<[(Thread, GuardValue)]>([])
        let result = LockedBox<ObserveResult?>(nil)
        let returnedAfterInitial = LockedBox<Bool?>(nil)
        let done = pause.runOnPausedThread(label: "observer-A") {
            let outcome = controller.observe(person, keyPath: "age", options: [.initial, .new]) { _, _, change in
                initials.mutate { $0.append((Thread.current, GuardValue.of(change.newValue))) }
            }
            result.value = outcome
            returnedAfterInitial.value = !initials.value.isEmpty
        }
        XCTAssertEqual(controller.unobserve(person, keyPath: "age"), .removed, "B removes the reserved registration")
        pause.resume()
        XCTAssertEqual(done.wait(timeout: .now() + 30), .success)
        XCTAssertEqual(result.value, .registered)
        XCTAssertEqual(initials.value.count, 1, "exactly one initial notification")
        XCTAssertEqual(initials.value.first?.1, 7)
        XCTAssertEqual(returnedAfterInitial.value, true, "delivered before observe returned")
        XCTAssertFalse(initials.value.first?.0.isMainThread ?? true, "delivered on A's thread, not B's")
        person.age = 8
        XCTAssertEqual(initials.value.count, 1, "nothing after the removal")
        XCTAssertEqual(person.observationCount, 0)
        XCTAssertEqual(sink.total, 0)
    }

    // MARK: No change is lost during `observe(.initial)` (defect 7)

    /// A change begins on another thread (its notification snapshot is taken), then the registration is made and
    /// its initial value read, then the change stores its new value. The change completed after `observe` began,
    /// so it must be delivered as a change (it is not in the initial value).
    func testAChangeUnderWayWhileObservingWithInitialIsDelivered() {
        let observer = GuardTestObserver()
        let (_, controller) = makeController(for: observer)
        let person = Person()
        person.age = 1
        let other = Recorder()
        person.addObserver(other, forKeyPath: "age")  // so the set takes the announcing path
        defer { person.removeObserver(other, forKeyPath: "age") }
        let pause = SchedulePause(at: .runtimeBeforeStore)
        defer { pause.uninstall() }
        let done = pause.runOnPausedThread(label: "setter") { person.age = 2 }
        let log = HandlerLog()
        XCTAssertEqual(
            controller.observe(person, keyPath: "age", options: [.initial, .new, .old], handler: log.recording("h")),
            .registered)
        XCTAssertEqual(log.all.map(\.new), [1], "the initial value is the one before the store")
        pause.resume()
        XCTAssertEqual(done.wait(timeout: .now() + 30), .success)
        XCTAssertEqual(log.all.count, 2, "the change under way is delivered: \(log.all)")
        XCTAssertEqual(log.all.last?.old, 1)
        XCTAssertEqual(log.all.last?.new, 2)
    }
}

/// A sink that runs `onDeinit` when it goes away.
private final class ReenteringSink: DiagnosticSink, @unchecked Sendable {
    private let onDeinit: @Sendable () -> Void
    init(onDeinit: @escaping @Sendable () -> Void) { self.onDeinit = onDeinit }
    deinit { onDeinit() }
    func record(_ event: GuardDiagnostic) {}
}
