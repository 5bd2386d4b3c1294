import Foundation
import XCTest

@testable import GuardCore

/// The runtime never crashes on edge inputs and keeps Foundation's contract where its old shortcuts broke it
/// (weak and unowned properties, typed key paths through nil, dotted re-wiring, dotted dependent keys).
final class RuntimeHardeningTests: XCTestCase {
    // MARK: Weak and unowned stored properties (defect 2)

    /// Reflection reports `weak var delegate: Person?` as a plain optional; reading its storage as a strong reference
    /// kills the process. Weak and unowned properties are read through the runtime's weak and unowned loads
    /// (WeakAndUnownedPropertyTests); an `unowned(unsafe)` one, which cannot be read safely, is refused: the
    /// `unknownKey` misuse with a message that says why, never a crash.
    func testWeakAndUnownedStoredPropertiesAreNeverReadAsStrongReferences() {
        let owner = Person()
        let delegate = Person()
        let holder = DelegateHolder(delegate: delegate, owner: owner)
        assertNoMisuse {
            XCTAssertTrue(holder.value(forKey: "delegate") as AnyObject? === delegate)
            XCTAssertTrue(holder.value(forKey: "owner") as AnyObject? === owner)
        }
        let misuses = recordingMisuse { XCTAssertNil(holder.value(forKey: "unsafeOwner")) }
        XCTAssertEqual(misuses.map(\.kind), [.unknownKey])
        XCTAssertTrue(misuses.first?.message.contains("unowned(unsafe)") ?? false, misuses.first?.message ?? "")
        let observer = Recorder()
        let added = recordingMisuse {
            holder.addObserver(observer, forKeyPath: "unsafeOwner", options: [.initial, .new])
        }
        XCTAssertEqual(added.map(\.kind), [.unknownKey], "observing unsafeOwner is refused at addObserver")
        XCTAssertEqual(observer.count, 0)
        XCTAssertEqual(holder.observationCount, 0)
        holder.strongFriend = delegate
        XCTAssertTrue(holder.value(forKey: "strongFriend") as AnyObject? === delegate, "strong ones still read")
    }

    /// The guard's key path check follows `unsafeOwner.age` without reading the `unowned(unsafe)` property.
    func testTheGuardRefusesAChainThroughAnUnownedUnsafeProperty() {
        let owner = Person()
        let holder = DelegateHolder(delegate: owner, owner: owner)
        let observer = NSObjectLikeObserver()
        let sink = CountingSink()
        let controller = ObservationController(observer: observer, diagnosticSink: sink)
        assertNoMisuse {
            XCTAssertEqual(
                controller.observe(holder, keyPath: "unsafeOwner.age") { _, _, _ in }, .invalid(.unobservableKeyPath))
            XCTAssertEqual(
                controller.observe(holder, keyPath: "unsafeOwner", options: [.initial, .new]) { _, _, _ in },
                .invalid(.unobservableKeyPath))
        }
        XCTAssertEqual(sink.count(of: .invalidArgument), 2)
    }

    // MARK: Noncopyable stored properties

    /// Reflection reports a noncopyable stored property's type as `()`; key-value coding used to answer `()` for it.
    /// Every property reflected as `()` is refused like a weak one: the `unknownKey` misuse with a message that says
    /// why; the properties around it still read.
    func testNoncopyableStoredPropertiesAreRefusedNotAnsweredAsEmptyTuples() {
        let holder = NoncopyableHolder()
        for key in ["token", "marker", "nothing"] {
            let misuses = recordingMisuse { XCTAssertNil(holder.value(forKey: key), key) }
            XCTAssertEqual(misuses.map(\.kind), [.unknownKey], key)
            XCTAssertTrue(
                misuses.first?.message.contains("reflection reports as `()`") ?? false, misuses.first?.message ?? "")
            let observer = Recorder()
            let added = recordingMisuse { holder.addObserver(observer, forKeyPath: key, options: [.initial, .new]) }
            XCTAssertEqual(added.map(\.kind), [.unknownKey], "observing \(key) is refused at addObserver")
            XCTAssertEqual(observer.count, 0)
            XCTAssertEqual(holder.observationCount, 0)
        }
        assertNoMisuse {
            XCTAssertEqual(holder.value(forKey: "level") as? Int, 0)
            XCTAssertEqual(holder.value(forKey: "after") as? Int, 5)
        }
        XCTAssertEqual(holder.token.descriptor, 7, "the token was never touched")
    }

    /// The guard refuses to observe a noncopyable property (`.invalid(.unobservableKeyPath)`, one diagnostic, no
    /// handler call) instead of registering it and delivering `()`.
    func testTheGuardRefusesANoncopyableStoredProperty() {
        let holder = NoncopyableHolder()
        let observer = NSObjectLikeObserver()
        let sink = CountingSink()
        let controller = ObservationController(observer: observer, diagnosticSink: sink)
        let calls = LockedBox(0)
        assertNoMisuse {
            XCTAssertEqual(
                controller.observe(holder, keyPath: "token", options: [.initial, .new]) { _, _, _ in calls.mutate { $0 += 1 } },
                .invalid(.unobservableKeyPath))
        }
        XCTAssertEqual(sink.count(of: .invalidArgument), 1)
        XCTAssertEqual(calls.value, 0)
        XCTAssertEqual(holder.observationCount, 0)
    }

    // MARK: Naming typed key paths never evaluates one that can trap (defect 4)

    /// Named as Foundation names them (`node.next.value`) without evaluating them: `node` is nil, and evaluating
    /// `\.node!.next!.value` would trap.
    func testTypedKeyPathsThroughOptionalsAreNamedWithoutBeingEvaluated() {
        let root = ChainRoot()
        XCTAssertEqual(root.keyPathString(for: \.node!.next!.value), "node.next.value")
        XCTAssertEqual(root.keyPathString(for: \.node?.next?.value), "node.next.value")
        let observer = Recorder()
        assertNoMisuse {
            root.addObserver(observer, forKeyPath: \.node!.next!.value, options: [.initial, .new])
            XCTAssertEqual(root.observationCount, 1)
            root.removeObserver(observer, forKeyPath: \.node?.next?.value)
        }
        XCTAssertEqual(observer.notes, [Note("node.next.value", new: boxedNil)])
        XCTAssertEqual(root.observationCount, 0)
        root.node = ChainNode()
        XCTAssertEqual(root.keyPathString(for: \.node), "node")
    }

    // MARK: Dotted re-wiring is linearizable per observance (defect 6)

    /// Two threads set the middle key one after the other, but the first one's re-wiring reads its (now old) middle
    /// object, then stalls while the second re-wires completely. When the first resumes it must not move the chain
    /// back to the old middle object (changes of the current one would be lost, the old one's delivered) nor leave
    /// two forwarders attached.
    func testAStaleRewireDoesNotUndoANewerOne() {
        let root = LockedMiddleRoot()
        let observer = Recorder()
        let first = ChainNode()
        let second = ChainNode()
        root.addObserver(observer, forKeyPath: "middle.leaf", options: [.new])
        defer { root.removeObserver(observer, forKeyPath: "middle.leaf") }
        let pause = SchedulePause(at: .runtimeRewireRead)
        defer { pause.uninstall() }
        let done = pause.runOnPausedThread(label: "stale-setter") { root.setMiddle(first) }
        root.setMiddle(second)
        pause.resume()
        XCTAssertEqual(done.wait(timeout: .now() + 30), .success)
        XCTAssertEqual(first.observationCount, 0, "no forwarder left on the old middle object")
        XCTAssertEqual(second.observationCount, 1, "exactly one forwarder on the current middle object")
        observer.reset()
        first.leaf = 1
        XCTAssertEqual(observer.count, 0, "the old middle object is silent")
        second.leaf = 2
        XCTAssertEqual(observer.notes, [Note("middle.leaf", new: "2")])
    }

    /// Many threads set the middle key of one root at once; afterwards exactly one forwarder is attached, to the
    /// current middle object.
    func testConcurrentRewiresEndOnTheCurrentMiddleObject() {
        let root = LockedMiddleRoot()
        let observer = Recorder()
        root.addObserver(observer, forKeyPath: "middle.leaf", options: [.new])
        defer { root.removeObserver(observer, forKeyPath: "middle.leaf") }
        let nodes = (0..<8).map { _ in ChainNode() }
        for round in 0..<50 {
            DispatchQueue.concurrentPerform(iterations: 8) { index in root.setMiddle(nodes[(index + round) % 8]) }
            let current = root.value(forKey: "middle") as? ChainNode
            let attached = nodes.filter { $0.observationCount > 0 }
            XCTAssertEqual(attached.count, 1, "round \(round)")
            XCTAssertTrue(attached.first === current, "round \(round): the forwarder is on the current middle object")
        }
    }

    // MARK: Smaller ones (defect 8)

    func testPropertiesNamedOutsideASCIIAreObservable() {
        let model = EmojiModel()
        let observer = Recorder()
        whileObserving(model, "😀", with: observer, options: [.new]) {
            whileObserving(model, "größe", with: observer, options: [.new]) {
                model.😀 = 1
                model.größe = 2
            }
        }
        XCTAssertEqual(observer.notes, [Note("😀", new: "1"), Note("größe", new: "2")])
        XCTAssertEqual(model.value(forKey: "😀") as? Int, 1)
    }

    /// A model that answers arbitrary keys must not make the runtime's per-class caches grow without bound.
    func testCachesStayBoundedForModelsThatAnswerArbitraryKeys() {
        let model = OpenEndedModel()
        let observer = Recorder()
        let keys = (0..<(ObservedClassInfo.cacheLimit * 3)).map { "dynamic-\($0)" }
        assertNoMisuse {
            for key in keys {
                model.addObserver(observer, forKeyPath: key)
                model.removeObserver(observer, forKeyPath: key)
            }
        }
        XCTAssertLessThanOrEqual(ObservedClassInfo.cachedEntryCount, ObservedClassInfo.cacheLimit * 2)
    }

    /// Each time a bounded per-class cache starts over, ``RuntimeCacheEvictions/count`` grows: that is how a harness
    /// that filled the caches ahead of time (FaultInjector's warm-up) knows its entries are gone.
    func testStartingOverIsCountedForEachBoundedCache() {
        let before = RuntimeCacheEvictions.count
        for index in 0...ObservedClassInfo.cacheLimit {
            ObservedClassInfo.noteKnownComputedKey("evicted-\(index)", of: OpenEndedModel.self)
        }
        let afterComputedKeys = RuntimeCacheEvictions.count
        XCTAssertGreaterThan(afterComputedKeys, before, "the computed keys started over")
        let model = OpenEndedModel()
        for index in 0...ObservedClassInfo.cacheLimit {
            XCTAssertNotNil(ObservedClassInfo.keyPathInfo(for: "dynamic-evicted-\(index)", on: model))
        }
        XCTAssertGreaterThan(RuntimeCacheEvictions.count, afterComputedKeys, "the key path facts started over")
    }

    /// An unpaired `willChangeValue` on an object that then deallocates must neither leak its pending entry nor pair
    /// with a `didChangeValue` of a new object that happens to reuse the address.
    func testAPendingChangeDiesWithItsObject() {
        let baseline = ManualChanges.pendingCountOnThisThread
        var identity: ObjectIdentifier?
        do {
            let doomed = ManualModel()
            identity = ObjectIdentifier(doomed)
            doomed.willChangeValue(forKey: "level")
            XCTAssertEqual(ManualChanges.pendingCountOnThisThread, baseline + 1)
        }
        // Allocate until an object lands at the dead one's address (glibc reuses it at once in practice).
        var reused: ManualModel?
        var keep: [ManualModel] = []
        for _ in 0..<1_000 {
            let candidate = ManualModel()
            if ObjectIdentifier(candidate) == identity {
                reused = candidate
                break
            }
            keep.append(candidate)
        }
        if let reused {
            let misuses = recordingMisuse { reused.didChangeValue(forKey: "level") }
            XCTAssertEqual(misuses.map(\.kind), [.unpairedDidChange], "no pairing with a dead object's entry")
        }
        XCTAssertEqual(ManualChanges.pendingCountOnThisThread, baseline, "the dead object's entry is gone")
        withExtendedLifetime(keep) {}
    }

    /// Dottedness and splitting agree: a key path is split at its "." scalars, even where "." combines with the
    /// next scalar into one Character.
    func testKeyPathsSplitAtDotScalarsEvenInsideAGraphemeCluster() {
        let root = AccentRoot()
        let node = AccentNode()
        root.a = node
        let keyPath = "a." + AccentNode.accentKey
        XCTAssertEqual(root.value(forKeyPath: keyPath) as? Int, 0)
        let observer = Recorder()
        whileObserving(root, keyPath, with: observer, options: [.new]) {
            node.setAccentValue(5)
        }
        XCTAssertEqual(observer.notes, [Note(keyPath, new: "5")])
    }

    /// A dependent key whose affecting key path is dotted fires when the leaf changes, as in Foundation (not only
    /// when the first key does).
    func testADependentKeyFiresOnTheLeafOfADottedAffectingPath() {
        let observancesBefore = RuntimeMonitor.liveObservanceCount
        let portfolio = Portfolio()
        let account = Account()
        let observer = Recorder()
        whileObserving(portfolio, "summary", with: observer, options: [.old, .new]) {
            portfolio.account = account
            account.balance = 10
            portfolio.account = nil
            account.balance = 20
        }
        XCTAssertEqual(
            observer.notes,
            [
                Note("summary", old: shown("balance -1"), new: shown("balance 0")),
                Note("summary", old: shown("balance 0"), new: shown("balance 10")),
                Note("summary", old: shown("balance 10"), new: shown("balance -1")),
            ])
        XCTAssertEqual(account.observationCount, 0, "the relay left the old account")
        XCTAssertEqual(portfolio.observationCount, 0)
        XCTAssertEqual(RuntimeMonitor.liveObservanceCount, observancesBefore)
    }
}

/// An observer class for the controller tests here.
private final class NSObjectLikeObserver: @unchecked Sendable {}
