@testable import FaultInjector
import GuardCore
import XCTest

/// `link.gauge`: a leaf reached through the link whose sets take only their own key's lock, so a link overlaps sets of
/// `gauge` on its old and new middle objects. The oracle leaves the link's `link.gauge` values unjudged then, lets a
/// forwarder wired by a link that overlaps a change join it without the prior notification, and still requires every
/// prior notification to be followed by its change. Root object 300, middle objects 301 and 302.
final class DottedLeafTests: XCTestCase {
    private let guardOracle = Oracle(checksGuardSemantics: true)

    // MARK: Oracle

    /// A link from 301 to 302 while a set of 301's `gauge` (5 → 9) is under way may read `link.gauge`'s old value
    /// before or after that set: 9 is accepted. The same link with a set of an unrelated object's `gauge` overlapping
    /// it read 5 for sure.
    func testALinkOverlappingAGaugeSetOnAMiddleObjectMayCarryEitherLeafValue() {
        func history(setting object: Int) -> (HistoryBuilder, OperationRecord, OperationRecord) {
            var builder = HistoryBuilder()
            let observe = builder.observe(.linkGauge, options: [.old, .new], at: 10, returning: 20)
            let first = builder.link(300, to: 301, gauge: nil, gaugeTo: 5, at: 22, returning: 26)
            builder.deliver(first, to: observe, at: 24)
            builder.mutate(.gauge, from: 5, to: 9, at: 30, returning: 50, object: object)
            let second = builder.link(300, from: 301, to: 302, gauge: 5, gaugeTo: 0, at: 35, returning: 45)
            return (builder, observe, second)
        }
        var overlapping = history(setting: 301)
        overlapping.0.deliver(overlapping.2, to: overlapping.1, at: 40, old: 9)
        assertPassed(guardOracle.evaluate(overlapping.0.history, facts: RunFacts()))

        var unrelated = history(setting: 303)
        unrelated.0.deliver(unrelated.2, to: unrelated.1, at: 40, old: 9)
        assertOnly(
            .valueMismatch, in: guardOracle.evaluate(unrelated.0.history, facts: RunFacts()),
            mentioning: "old 9 instead of 5")
    }

    /// A prior notification of a set of 301's `gauge`, relayed while 300 linked 301, must be followed by its change
    /// even though a link to 302 overlapped the set (the forwarder was detached while the prior was open).
    func testAPriorNotificationRelayedBeforeALinkMovedOnStillNeedsItsChange() {
        var builder = HistoryBuilder()
        let observe = builder.observe(.linkGauge, options: [.prior], at: 10, returning: 20)
        let first = builder.link(300, to: 301, gauge: nil, gaugeTo: 0, at: 22, returning: 26)
        builder.deliver(first, to: observe, at: 23, prior: true)
        builder.deliver(first, to: observe, at: 25)
        let set = builder.mutate(.gauge, from: 0, to: 9, at: 30, returning: 50, object: 301)
        builder.deliver(set, to: observe, at: 32, prior: true)
        let second = builder.link(300, from: 301, to: 302, gauge: 0, gaugeTo: 0, at: 35, returning: 45)
        builder.deliver(second, to: observe, at: 36, prior: true)
        builder.deliver(second, to: observe, at: 44)
        assertOnly(
            .priorOrder, in: guardOracle.evaluate(builder.history, facts: RunFacts()), mentioning: "but never the change")

        builder.deliver(set, to: observe, at: 48)
        assertPassed(guardOracle.evaluate(builder.history, facts: RunFacts()))
    }

    /// A set of 301's `gauge` heard without its prior notification: fine when the link to 301 overlapped the set (the
    /// new forwarder joined the change under way), a prior-order violation when the link was made before the set began.
    func testAChangeWithoutItsPriorIsAcceptedOnlyWhenTheLinkOverlappedIt() {
        func history(linkingAt call: UInt64, returning ret: UInt64) -> HistoryBuilder {
            var builder = HistoryBuilder()
            let observe = builder.observe(.linkGauge, options: [.prior], at: 10, returning: 20)
            let set = builder.mutate(.gauge, from: 0, to: 9, at: 30, returning: 50, object: 301)
            let link = builder.link(300, to: 301, gauge: nil, gaugeTo: 0, at: call, returning: ret)
            builder.deliver(link, to: observe, at: call + 1, prior: true)
            builder.deliver(link, to: observe, at: ret - 1)
            builder.deliver(set, to: observe, at: 48)
            return builder
        }
        assertPassed(guardOracle.evaluate(history(linkingAt: 35, returning: 45).history, facts: RunFacts()))
        assertOnly(
            .priorOrder, in: guardOracle.evaluate(history(linkingAt: 22, returning: 26).history, facts: RunFacts()),
            mentioning: "without the prior notification it asked for")
    }

    /// A set of 301's `gauge` heard through `link.gauge` without the old value asked for: fine when the link to 301
    /// overlapped the set (the new forwarder joined the change after its old value was read), a value mismatch when
    /// the link was made before the set began.
    func testAChangeWithoutItsOldValueIsAcceptedOnlyWhenTheLinkOverlappedIt() {
        func history(linkingAt call: UInt64, returning ret: UInt64) -> HistoryBuilder {
            var builder = HistoryBuilder()
            let observe = builder.observe(.linkGauge, options: [.old], at: 10, returning: 20)
            let set = builder.mutate(.gauge, from: 0, to: 9, at: 30, returning: 50, object: 301)
            let link = builder.link(300, to: 301, gauge: nil, gaugeTo: 0, at: call, returning: ret)
            builder.deliver(link, to: observe, at: ret - 1)
            builder.add(
                DeliveryRecord(
                    registration: observe.id, cause: set.id, worker: set.worker, sequence: 0, time: 48, kind: 1,
                    isPrior: false, hasOld: false, hasNew: false, oldValue: .min, newValue: .min,
                    observer: observe.observer, keyPathMatches: true, indexMask: 0))
            return builder
        }
        assertPassed(guardOracle.evaluate(history(linkingAt: 35, returning: 45).history, facts: RunFacts()))
        assertOnly(
            .valueMismatch, in: guardOracle.evaluate(history(linkingAt: 22, returning: 26).history, facts: RunFacts()),
            mentioning: "with no old value")
    }

    /// An observe of `link.gauge` with `.initial` + `.new` at 10...32 whose read raced (initial notification at 30):
    /// meanwhile 300's link moved from 301 (`gauge` 5, set to 9 at 12...14) to 302 (`gauge` 0, set to 7 at 25...27).
    /// Any of 5, 9, 0 and 7 is a value read through the link; 11 (set on 303, never linked) and 13 (304's, linked only
    /// after the notification) are not, and neither is nil while the link named a stress object throughout.
    func testARacedInitialValueOfLinkGaugeIsALeafValueOfAnObjectTheLinkNamedDuringTheCall() {
        func report(initial: Int, movingTo target: Int? = 302) -> Verdict {
            var builder = HistoryBuilder()
            builder.mutate(.gauge, from: 0, to: 5, at: 1, returning: 2, object: 301)
            builder.mutate(.gauge, from: 0, to: 13, at: 3, returning: 4, object: 304)
            builder.link(300, to: 301, gauge: nil, gaugeTo: 5, at: 5, returning: 6)
            var observe = builder.observe(.linkGauge, options: [.initial, .new], at: 10, returning: 32, worker: 1)
            observe.newValue = StressValue.racedRead
            builder.history.operations = builder.history.operations.map { $0.id == observe.id ? observe : $0 }
            builder.mutate(.gauge, from: 5, to: 9, at: 12, returning: 14, object: 301)
            builder.link(300, from: 301, to: target, gauge: 5, gaugeTo: target == nil ? nil : 0, at: 15, returning: 20)
            builder.mutate(.gauge, from: 0, to: 11, at: 16, returning: 18, object: 303)
            builder.mutate(.gauge, from: 0, to: 7, at: 25, returning: 27, object: 302)
            builder.add(
                DeliveryRecord(
                    registration: observe.id, cause: observe.id, worker: 1, sequence: 0, time: 30, kind: 1,
                    isPrior: false, hasOld: false, hasNew: true, oldValue: .min, newValue: initial,
                    observer: HistoryBuilder.observer, keyPathMatches: true))
            let last = builder.link(
                300, from: target, to: 304, gauge: target == nil ? nil : 7, gaugeTo: 13, at: 50, returning: 55)
            builder.deliver(last, to: observe, at: 52)
            return guardOracle.evaluate(builder.history, facts: RunFacts())
        }
        for value in [5, 9, 0, 7] {
            let passing = report(initial: value)
            assertPassed(passing)
            XCTAssertEqual(passing.checks[InitialValueChecks.throughLinkRule], 1, "\(value)")
        }
        for value in [11, 13, StressValue.nilValue] {
            assertOnly(.valueMismatch, in: report(initial: value), mentioning: "which no object the link named")
        }
        // A link to nothing during the call: nil was read through it.
        assertPassed(report(initial: StressValue.nilValue, movingTo: nil))
        assertOnly(
            .valueMismatch, in: report(initial: 7, movingTo: nil), mentioning: "(they had nil, 5, 9)")
    }

    // MARK: Drawing and text

    /// The dotted-leaf profile draws sets of `gauge` (as mutates) and observes `link.gauge`; no other profile draws
    /// either, so every other profile draws what it drew before `gauge` existed.
    func testOnlyTheDottedLeafProfileDrawsGaugeSetsAndLinkGauge() {
        for profile in ScenarioProfile.allCases {
            var generator = Xoshiro256StarStar(seed: 21)
            let operations = OperationDrawer(configuration: profile.configuration()).draw(count: 3_000, using: &generator)
            let gaugeSets = operations.filter(setsGauge).count
            let linkGauges = operations.filter { "\($0)".contains("link.gauge") }.count
            if profile == .dottedLeaf {
                XCTAssertGreaterThan(gaugeSets, 300, "\(profile)")
                XCTAssertGreaterThan(linkGauges, 100, "\(profile)")
            } else {
                XCTAssertEqual(gaugeSets, 0, "\(profile)")
                XCTAssertEqual(linkGauges, 0, "\(profile)")
            }
        }
        XCTAssertEqual(ScenarioConfiguration().keys, StressKey.widened + StressKey.spelledApart)
        XCTAssertFalse(StressKey.widened.contains(.gauge))
        XCTAssertFalse(StressKey.widened.contains(.linkGauge))
    }

    /// A worker's mutate of `gauge` reads back from its text; a handler action may set only the stored keys.
    func testGaugeSetsHaveATextFormOnlyAsAWorkersOperation() {
        XCTAssertEqual(FaultInjector.Operation.mutate(object: 1, key: .gauge).description, "mutate o1 gauge")
        XCTAssertEqual(FaultInjector.Operation("mutate o1 gauge"), .mutate(object: 1, key: .gauge))
        XCTAssertEqual(FaultInjector.Operation("observe c0 o1 link.gauge [prior]"), .observe(controller: 0, object: 1, key: .linkGauge, options: [.prior], action: .none))
        XCTAssertNil(HandlerAction("mutate o1 gauge"))
    }

    private func setsGauge(_ operation: FaultInjector.Operation) -> Bool {
        if case .mutate(_, .gauge) = operation { return true }
        return false
    }

    // MARK: The object

    /// `gauge` is announced by hand: setting it notifies observers of `gauge` and of `link.gauge` on an object linking
    /// here, once each, with a prior notification first.
    func testSettingGaugeNotifiesItsObserversAndThoseThroughTheLink() {
        let root = StressObject(id: 1)
        let middle = StressObject(id: 2)
        root.setLink(middle)
        let recorder = Recorder()
        root.addObserver(recorder, forKeyPath: "link.gauge", options: [.prior, .old, .new])
        middle.addObserver(recorder, forKeyPath: "gauge", options: [.old, .new])
        middle.set(.gauge, to: 7)
        root.removeObserver(recorder, forKeyPath: "link.gauge")
        middle.removeObserver(recorder, forKeyPath: "gauge")
        XCTAssertEqual(recorder.heard.filter { $0.hasPrefix("link.gauge") }, ["link.gauge prior 0", "link.gauge 0→7"])
        XCTAssertEqual(recorder.heard.filter { $0.hasPrefix("gauge") }, ["gauge 0→7"])
        XCTAssertEqual(root.value(of: .linkGauge), 7)
        XCTAssertEqual(middle.value(forKey: "gauge") as? Int, 7)
    }

    private final class Recorder: KeyValueObserver, @unchecked Sendable {
        private let lock = NSLock()
        private var lines: [String] = []

        var heard: [String] { lock.withLock { lines } }

        func observeValue(
            forKeyPath keyPath: String, of object: KVOObject, change: KeyValueChange, context: UnsafeMutableRawPointer?
        ) {
            let old = change.oldValue.map { "\($0)" } ?? "-"
            let line = change.isPrior ? "\(keyPath) prior \(old)" : "\(keyPath) \(old)→\(change.newValue.map { "\($0)" } ?? "-")"
            lock.withLock { lines.append(line) }
        }
    }
}
