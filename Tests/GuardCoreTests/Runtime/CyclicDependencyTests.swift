import GuardCore
import XCTest

/// A key whose declared dependencies lead back to itself through a dotted key path: `peer` ← `peer.peer`, or `a` ←
/// `peer.a` with the peer being the object itself, or two keys of two objects depending on each other. Registering
/// such a key ends (it used to recurse until the stack overflowed), so does every change, and removing the
/// registration takes the runtime's relays with it. A set reaches the dependent key once, however many ways the
/// declaration says it affects it (as Foundation notifies each observance of a change once: a set of `a` changes `a`
/// and, through the self-loop, `peer.a`, declared to affect `a`, and `a`'s observer hears once).
final class CyclicDependencyTests: XCTestCase {
    /// `peer` depends on `peer.peer`: the dotted key path that affects `peer` starts with `peer` itself.
    final class Link: KVOObject, @unchecked Sendable {
        @Observed var peer: Link?
        @Observed var a = 0

        override class func keyPathsForValuesAffectingValue(forKey key: String) -> Set<String> {
            switch key {
            case "peer": return ["peer.peer"]
            case "a": return ["peer.a"]
            default: return []
            }
        }
    }

    /// `x` depends on `other.y` and `y` on `other.x`: with two objects pointing at each other, each key's relay
    /// observes a key path announced by the other's relay.
    final class Twin: KVOObject, @unchecked Sendable {
        @Observed var other: Twin?
        @Observed var x = 0
        @Observed var y = 0

        override class func keyPathsForValuesAffectingValue(forKey key: String) -> Set<String> {
            switch key {
            case "x": return ["other.y"]
            case "y": return ["other.x"]
            default: return []
            }
        }
    }

    /// `left` depends on `right.value` and `right` on `left.value`: each relay's key path starts with a key that
    /// the other relay's key path affects.
    final class Crossed: KVOObject, @unchecked Sendable {
        @Observed var left: Crossed?
        @Observed var right: Crossed?
        @Observed var value = 0

        override class func keyPathsForValuesAffectingValue(forKey key: String) -> Set<String> {
            switch key {
            case "left": return ["right.value"]
            case "right": return ["left.value"]
            default: return []
            }
        }
    }

    func testTwoRelaysWhoseKeyPathsAffectEachOtherStartOnceEach() {
        let baseline = RuntimeMonitor.liveObservanceCount
        let crossed = Crossed()
        let neighbour = Crossed()
        crossed.right = neighbour
        let recorder = Recorder()
        whileObserving(crossed, "left", with: recorder, options: [.new]) {
            neighbour.value = 1
        }
        XCTAssertEqual(recorder.notes.map(\.keyPath), ["left"])
        XCTAssertEqual(RuntimeMonitor.liveObservanceCount, baseline)
    }

    func testAKeyThatDependsOnADottedPathThroughItselfRegistersNotifiesAndLeavesNothingBehind() {
        let baseline = RuntimeMonitor.liveObservanceCount
        let link = Link()
        let next = Link()
        let recorder = Recorder()
        whileObserving(link, "peer", with: recorder, options: [.new]) {
            link.peer = next
        }
        // `peer` changed, and so did `peer.peer` (now `next.peer`), which affects `peer`: one change of `peer`.
        XCTAssertEqual(recorder.notes.map(\.keyPath), ["peer"])
        XCTAssertEqual(RuntimeMonitor.liveObservanceCount, baseline, "the relays went with the registration")
        XCTAssertEqual(link.observationCount, 0)
        XCTAssertEqual(next.observationCount, 0)
    }

    func testAChangeOfTheLeafOfTheAffectingPathNotifiesTheDependentKey() {
        let link = Link()
        let next = Link()
        link.peer = next
        let recorder = Recorder()
        whileObserving(link, "peer", with: recorder) {
            next.peer = Link()
        }
        // `peer.peer` changed; so did `next.peer.peer`, which affects `next.peer`, that is `peer.peer`: both ways lead
        // to one change of `peer`.
        XCTAssertEqual(recorder.notes.map(\.keyPath), ["peer"])
    }

    func testASelfLoopThroughTheAffectingPathNotifiesOnce() {
        let link = Link()
        link.peer = link
        let recorder = Recorder()
        whileObserving(link, "a", with: recorder, options: [.old, .new]) {
            link.a = 1
        }
        XCTAssertEqual(recorder.notes, [Note("a", old: shown(0), new: shown(1))])
        link.peer = nil
    }

    func testASelfLoopMadeWhileObservedEnds() {
        let link = Link()
        let recorder = Recorder()
        whileObserving(link, "a", with: recorder, options: [.new]) {
            link.peer = link
            recorder.reset()
            link.a = 1
        }
        XCTAssertEqual(recorder.notes, [Note("a", new: shown(1))])
        link.peer = nil
    }

    func testTwoKeysThatDependOnEachOtherAcrossTwoObjectsNotifyEachChangeOnce() {
        let first = Twin()
        let second = Twin()
        first.other = second
        second.other = first
        let recorder = Recorder()
        whileObserving(first, "x", with: recorder, options: [.new]) {
            second.y = 1
        }
        XCTAssertEqual(recorder.notes, [Note("x", new: shown(0))])
        first.other = nil
        second.other = nil
    }

    func testTheGuardRegistersAKeyThatDependsOnADottedPathThroughItself() {
        let owner = Recorder()
        let link = Link()
        let sink = CountingSink()
        let controller = ObservationController(observer: owner, diagnosticSink: sink)
        let notified = TestBox(0)
        assertNoMisuse {
            XCTAssertEqual(
                controller.observe(link, keyPath: "peer") { _, _, _ in notified.mutate { $0 += 1 } }, .registered)
            link.peer = Link()
            XCTAssertEqual(controller.unobserve(link, keyPath: "peer"), .removed)
            link.peer = Link()
        }
        XCTAssertEqual(notified.get(), 1, "`peer`, also reached through `peer.peer`, once, as in the runtime")
        XCTAssertEqual(link.observationCount, 0)
        XCTAssertEqual(sink.total, 0)
    }
}
