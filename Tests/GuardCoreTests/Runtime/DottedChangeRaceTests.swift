import Foundation
import XCTest

@testable import GuardCore

/// Races between changes of a dotted key path's middle object (or leaf) and registrations made while the change is
/// under way, found by `guard-stress` once its scenarios observed `link.k0` and `linked` (which depends on it).
final class DottedChangeRaceTests: XCTestCase {
    // MARK: A registration made while nobody observed the middle key

    /// The middle key's change begins while nobody observes it (so it announces nothing), a dotted registration is
    /// made, then the new middle object is stored and the change ends. The registration read the old (nil) middle
    /// object while wiring itself; the end of the change must re-wire it, or the chain stays on nothing and every
    /// later change of the leaf is lost.
    func testARegistrationMadeDuringAnUnannouncedChangeOfItsMiddleFollowsTheNewMiddle() {
        let root = StepwiseRoot()
        let node = ChainNode()
        let observer = Recorder()
        assertNoMisuse {
            root.willChangeValue(forKey: "middle")
            root.addObserver(observer, forKeyPath: "middle.leaf", options: [.new])
            root.store(node)
            root.didChangeValue(forKey: "middle")
        }
        observer.reset()
        node.leaf = 5
        XCTAssertEqual(observer.notes, [Note("middle.leaf", new: "5")], "the chain follows the new middle object")
        root.removeObserver(observer, forKeyPath: "middle.leaf")
        XCTAssertEqual(node.observationCount, 0, "the forwarder left with the registration")
    }

    /// The same through the guard.
    func testAGuardRegistrationMadeDuringAnUnannouncedChangeOfItsMiddleFollowsTheNewMiddle() {
        let observer = GuardTestObserver()
        let (sink, controller) = makeController(for: observer)
        let root = StepwiseRoot()
        let node = ChainNode()
        let log = HandlerLog()
        assertNoMisuse {
            root.willChangeValue(forKey: "middle")
            XCTAssertEqual(
                controller.observe(root, keyPath: "middle.leaf", options: [.new], handler: log.recording("h")), .registered)
            root.store(node)
            root.didChangeValue(forKey: "middle")
            node.leaf = 7
        }
        XCTAssertEqual(log.all.last?.new, 7, "the leaf change after the middle change is delivered: \(log.all)")
        XCTAssertEqual(sink.total, 0)
    }

    /// The same for a dependent key's relay started while an announced change of the middle key is under way: the
    /// relay does not hear that change (it never joins one under way), but it must still move to the new middle
    /// object, or the dependent key hears the old middle object's leaf and never the new one's.
    func testARelayStartedDuringAnAnnouncedChangeOfItsMiddleFollowsTheNewMiddle() {
        let observer = GuardTestObserver()
        let (_, controller) = makeController(for: observer)
        let root = StepwiseRoot()
        let old = ChainNode()
        let node = ChainNode()
        root.store(old)
        let middleWatcher = Recorder()
        root.addObserver(middleWatcher, forKeyPath: "middle")  // so the change of the middle key is announced
        defer { root.removeObserver(middleWatcher, forKeyPath: "middle") }
        let log = HandlerLog()
        assertNoMisuse {
            root.willChangeValue(forKey: "middle")
            XCTAssertEqual(
                controller.observe(root, keyPath: "leafCopy", options: [.new], handler: log.recording("h")), .registered)
            root.store(node)
            root.didChangeValue(forKey: "middle")
            old.leaf = 1
            node.leaf = 2
        }
        XCTAssertEqual(log.all.map(\.new), [2], "only the new middle object's leaf is heard: \(log.all)")
        XCTAssertEqual(old.observationCount, 0, "nothing is left on the old middle object")
    }

    // MARK: A chain that breaks while the guard registers

    /// The guard checks a dotted key path, reserves the registration (so a concurrent observe of the same key path is
    /// a duplicate), and only then registers with the runtime. If the middle object is replaced by one without the leaf
    /// key in between, the registration must still be made (its chain reads as nil, like any registration whose chain
    /// breaks later), not refused: a concurrent caller was already told it exists.
    func testAChainThatBreaksWhileRegisteringStillRegisters() {
        let observer = GuardTestObserver()
        let (sink, controller) = makeController(for: observer)
        let root = ChainRoot()
        root.middle = ChainNode()
        let pause = SchedulePause(at: .guardBeforeRegister)
        defer { pause.uninstall() }
        let first = LockedBox<ObserveResult?>(nil)
        let done = pause.runOnPausedThread(label: "observer") {
            first.value = controller.observe(root, keyPath: "middle.leaf", options: [.new]) { _, _, _ in }
        }
        assertNoMisuse {
            XCTAssertEqual(
                controller.observe(root, keyPath: "middle.leaf") { _, _, _ in }, .duplicate,
                "the reserved registration is visible")
            root.middle = ChainStranger()
        }
        pause.resume()
        XCTAssertEqual(done.wait(timeout: .now() + 30), .success)
        XCTAssertEqual(first.value, .registered, "a registration another caller saw was made")
        XCTAssertEqual(controller.observedKeyPaths(of: root), ["middle.leaf"])
        XCTAssertEqual(sink.events.map(\.kind), [.duplicateObservation, .keyPathUnavailable])
        let node = ChainNode()
        root.middle = node
        XCTAssertEqual(node.observationCount, 1, "the chain follows a middle object with the leaf again")
        XCTAssertEqual(controller.unobserve(root, keyPath: "middle.leaf"), .removed)
    }

    // MARK: A dependent key's relay removed in the middle of a change

    /// The last registration of a key that depends on a dotted key path is removed from inside the prior notification
    /// of a change of the leaf: the relay that announced the prior is stopped before the change ends. What it began
    /// must not stay pending on the thread: a later `didChangeValue` of the affecting key path would pair with it and
    /// announce stale values instead of being reported as unpaired.
    func testARelayStoppedInTheMiddleOfAChangeLeavesNothingPending() {
        let observer = GuardTestObserver()
        let (_, controller) = makeController(for: observer)
        let root = StepwiseRoot()
        let node = ChainNode()
        root.store(node)
        let baseline = ManualChanges.pendingCountOnThisThread
        let removed = LockedBox<UnobserveResult?>(nil)
        XCTAssertEqual(
            controller.observe(root, keyPath: "leafCopy", options: [.prior]) { [weak controller] _, object, change in
                guard change.isPrior else { return }
                removed.value = controller?.unobserve(object, keyPath: "leafCopy")
            }, .registered)
        assertNoMisuse { node.leaf = 1 }
        XCTAssertEqual(removed.value, .removed, "the handler removed the last dependent registration")
        XCTAssertEqual(ManualChanges.pendingCountOnThisThread, baseline, "nothing the relay began is left pending")
        let misuses = recordingMisuse { root.didChangeValue(forKey: "middle.leaf") }
        XCTAssertEqual(misuses.map(\.kind), [.unpairedDidChange], "an unpaired didChange is reported, not paired")
    }

    // MARK: A dependent key's relay that joins while a change is under way

    /// A change of the leaf is under way (its prior notifications are sent, the store is not done) when the first
    /// registration of a key that depends on the dotted key path is made, which starts the relay that announces it.
    /// The relay must not join that change late: it would announce the dependent key's "old" value after the store,
    /// so the notification would carry the new value as the old one.
    func testADependentKeyNeverReportsTheNewValueAsTheOld() {
        let observer = GuardTestObserver()
        let (_, controller) = makeController(for: observer)
        let root = StepwiseRoot()
        let node = ChainNode()
        root.store(node)
        node.leaf = 1
        let other = Recorder()
        node.addObserver(other, forKeyPath: "leaf")  // so the set takes the announcing path
        defer { node.removeObserver(other, forKeyPath: "leaf") }
        let pause = SchedulePause(at: .runtimeBeforeStore)
        defer { pause.uninstall() }
        let done = pause.runOnPausedThread(label: "leaf-setter") { node.leaf = 2 }
        let log = HandlerLog()
        XCTAssertEqual(
            controller.observe(root, keyPath: "leafCopy", options: [.old, .new, .prior], handler: log.recording("h")),
            .registered)
        pause.resume()
        XCTAssertEqual(done.wait(timeout: .now() + 30), .success)
        for call in log.all {
            XCTAssertNotEqual(call.old, 2, "the change under way reported its new value as the old one: \(log.all)")
        }
        node.leaf = 3
        let last = log.all.filter { !$0.isPrior }.last
        XCTAssertEqual(last?.old, 2, "\(log.all)")
        XCTAssertEqual(last?.new, 3, "\(log.all)")
    }
}

/// A root whose middle object is stored behind a lock and announced by hand, one step at a time, so a test can make
/// a registration between the `willChangeValue`, the store and the `didChangeValue`. `leafCopy` depends on the dotted
/// key path `middle.leaf`.
private final class StepwiseRoot: KVOObject, @unchecked Sendable {
    private let lock = NSLock()
    private var storedMiddle: ChainNode?

    override class func automaticallyNotifiesObservers(forKey key: String) -> Bool {
        key == "middle" ? false : super.automaticallyNotifiesObservers(forKey: key)
    }

    override class func keyPathsForValuesAffectingValue(forKey key: String) -> Set<String> {
        key == "leafCopy" ? ["middle.leaf"] : super.keyPathsForValuesAffectingValue(forKey: key)
    }

    override func value(forKey key: String) -> Any? {
        switch key {
        case "middle": return lock.withLock { storedMiddle }
        case "leafCopy": return lock.withLock { storedMiddle }?.leaf
        default: return super.value(forKey: key)
        }
    }

    /// Stores a new middle object without announcing it.
    func store(_ middle: ChainNode?) {
        lock.withLock { storedMiddle = middle }
    }
}
