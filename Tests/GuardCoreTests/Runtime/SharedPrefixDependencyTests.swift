import Foundation
import GuardCore
import XCTest

/// A dependent key that several declared key paths lead to hears about each change once.
///
/// Foundation: `+keyPathsForValuesAffectingValueForKey:` makes an observer of the dependent key hear about a change of
/// any affecting key path, and it notifies each observance affected by a change once, however many of the declared
/// key paths the change reaches (`both` ← `child.t1`, `child.t2`: setting `child` notifies `both` once, as the
/// `DerivedKeyDependentOnTwoSubKeys` case of the WinObjC / GNUstep KVO conformance tests checks).
final class SharedPrefixDependencyTests: XCTestCase {
    final class Leaf: KVOObject, @unchecked Sendable {
        @Observed var t1 = 0
        @Observed var t2 = 0
        @Observed var inner: Leaf?
    }

    /// `both` ← `child.t1`, `child.t2`; `top` ← `both`; `mixed` ← `child`, `child.t1`; `deep` ←
    /// `child.inner.t1`, `child.inner.t2`; `wide` ← `child.t1`, `child.t2`, `child.inner.t1`.
    final class Holder: KVOObject, @unchecked Sendable {
        @Observed var child: Leaf?
        @Observed var count = 0

        override class func keyPathsForValuesAffectingValue(forKey key: String) -> Set<String> {
            switch key {
            case "both": return ["child.t1", "child.t2"]
            case "top": return ["both"]
            case "mixed": return ["child", "child.t1"]
            case "deep": return ["child.inner.t1", "child.inner.t2"]
            case "wide": return ["child.t1", "child.t2", "child.inner.t1"]
            default: return []
            }
        }

        override class func automaticallyNotifiesObservers(forKey key: String) -> Bool {
            key == "count" ? false : super.automaticallyNotifiesObservers(forKey: key)
        }

        override func value(forKey key: String) -> Any? {
            switch key {
            case "both", "mixed", "top": return (child?.t1 ?? 0) + (child?.t2 ?? 0)
            case "deep": return (child?.inner?.t1 ?? 0) + (child?.inner?.t2 ?? 0)
            case "wide": return (child?.t1 ?? 0) + (child?.t2 ?? 0) + (child?.inner?.t1 ?? 0)
            default: return super.value(forKey: key)
            }
        }
    }

    private func leaf(_ t1: Int, _ t2: Int, inner: Leaf? = nil) -> Leaf {
        let leaf = Leaf()
        leaf.t1 = t1
        leaf.t2 = t2
        leaf.inner = inner
        return leaf
    }

    func testSettingTheSharedFirstKeyNotifiesTheDependentKeyOnce() {
        let holder = Holder()
        let recorder = Recorder()
        whileObserving(holder, "both", with: recorder, options: [.prior, .old, .new]) {
            holder.child = leaf(1, 2)
        }
        XCTAssertEqual(recorder.notes, [Note.prior("both", old: shown(0)), Note("both", old: shown(0), new: shown(3))])
    }

    func testAManualWillDidPairOfTheSharedFirstKeyNotifiesTheDependentKeyOnce() {
        let holder = Holder()
        let recorder = Recorder()
        whileObserving(holder, "both", with: recorder, options: [.prior, .new]) {
            holder.willChangeValue(forKey: "child")
            holder.didChangeValue(forKey: "child")
        }
        XCTAssertEqual(recorder.notes, [Note.prior("both"), Note("both", new: shown(0))])
    }

    func testEachLeafStillNotifiesOnce() {
        let holder = Holder()
        holder.child = leaf(1, 2)
        let recorder = Recorder()
        whileObserving(holder, "both", with: recorder, options: [.new]) {
            holder.child?.t1 = 10
            holder.child?.t2 = 20
        }
        XCTAssertEqual(recorder.notes, [Note("both", new: shown(12)), Note("both", new: shown(30))])
    }

    func testADependencyOfTheDependentKeyIsNotifiedOnceToo() {
        let holder = Holder()
        let recorder = Recorder()
        assertNoMisuse {
            holder.addObserver(recorder, forKeyPath: "top", options: [.new])
            holder.addObserver(recorder, forKeyPath: "both", options: [.new])
            holder.child = leaf(2, 2)
            holder.removeObserver(recorder, forKeyPath: "top")
            holder.removeObserver(recorder, forKeyPath: "both")
        }
        XCTAssertEqual(recorder.notes.map(\.keyPath).sorted(), ["both", "top"])
    }

    func testAKeyDeclaredAndReachedThroughADottedPathIsNotifiedOnce() {
        let holder = Holder()
        let recorder = Recorder()
        whileObserving(holder, "mixed", with: recorder, options: [.prior, .new]) {
            holder.child = leaf(4, 0)
        }
        XCTAssertEqual(recorder.notes, [Note.prior("mixed"), Note("mixed", new: shown(4))])
    }

    func testALongerSharedPrefixNotifiesOnceWhereverItChanges() {
        let holder = Holder()
        let recorder = Recorder()
        whileObserving(holder, "deep", with: recorder, options: [.prior, .new]) {
            holder.child = leaf(0, 0, inner: leaf(1, 1))
            holder.child?.inner = leaf(2, 3)
            holder.child?.inner?.t2 = 5
        }
        XCTAssertEqual(
            recorder.notes,
            [
                Note.prior("deep"), Note("deep", new: shown(2)),
                Note.prior("deep"), Note("deep", new: shown(5)),
                Note.prior("deep"), Note("deep", new: shown(7)),
            ])
    }

    func testPrefixesOfDifferentLengthsNotifyOnce() {
        let holder = Holder()
        let recorder = Recorder()
        whileObserving(holder, "wide", with: recorder, options: [.new]) {
            holder.child = leaf(1, 1, inner: leaf(1, 0))
            holder.child?.inner = leaf(5, 0)
        }
        XCTAssertEqual(recorder.notes, [Note("wide", new: shown(3)), Note("wide", new: shown(7))])
    }

    func testEveryObserverOfTheDependentKeyHearsOnce() {
        let holder = Holder()
        let first = Recorder()
        let second = Recorder()
        assertNoMisuse {
            holder.addObserver(first, forKeyPath: "both", options: [.new])
            holder.addObserver(second, forKeyPath: "both", options: [.new])
            holder.child = leaf(1, 1)
            holder.removeObserver(first, forKeyPath: "both")
            holder.removeObserver(second, forKeyPath: "both")
        }
        XCTAssertEqual(first.notes, [Note("both", new: shown(2))])
        XCTAssertEqual(second.notes, [Note("both", new: shown(2))])
    }

    /// Two `willChangeValue` / `didChangeValue` pairs an application nests are two changes, as in Foundation.
    func testNestedManualPairsAreTwoChanges() {
        let holder = Holder()
        let recorder = Recorder()
        whileObserving(holder, "both", with: recorder, options: [.prior]) {
            holder.willChangeValue(forKey: "child")
            holder.willChangeValue(forKey: "child")
            holder.didChangeValue(forKey: "child")
            holder.didChangeValue(forKey: "child")
        }
        XCTAssertEqual(recorder.notes.map(\.isPrior), [true, true, false, false])
    }

    /// A change made by a handler while the priors of another change go out is a change of its own.
    func testAChangeMadeInsideAPriorHandlerIsNotifiedOnItsOwn() {
        let holder = Holder()
        holder.child = leaf(1, 1)
        let recorder = Recorder()
        let setter = Recorder()
        setter.onNotify = { _, _, _, change in
            if change.isPrior { holder.child?.t1 = 7 }
        }
        assertNoMisuse {
            holder.addObserver(setter, forKeyPath: "count", options: [.prior])
            holder.addObserver(recorder, forKeyPath: "both", options: [.new])
            holder.willChangeValue(forKey: "count")
            holder.didChangeValue(forKey: "count")
            holder.removeObserver(setter, forKeyPath: "count")
            holder.removeObserver(recorder, forKeyPath: "both")
        }
        XCTAssertEqual(recorder.notes, [Note("both", new: shown(8))])
    }

    func testTheGuardHearsOnceAndLeavesNothingBehind() {
        let baseline = RuntimeMonitor.liveObservanceCount
        let holder = Holder()
        let owner = Recorder()
        let sink = CountingSink()
        let heard = TestBox<[Int]>([])
        do {
            let controller = ObservationController(observer: owner, diagnosticSink: sink)
            assertNoMisuse {
                controller.observe(holder, keyPath: "both", options: [.new]) { _, _, change in
                    heard.mutate { $0.append(change.newValue(as: Int.self) ?? -1) }
                }
                holder.child = leaf(1, 2)
                holder.child = nil
            }
            controller.unobserveAll()
        }
        XCTAssertEqual(heard.get(), [3, 0])
        XCTAssertEqual(sink.total, 0)
        XCTAssertEqual(RuntimeMonitor.liveObservanceCount, baseline)
    }
}
