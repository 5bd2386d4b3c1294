@testable import FaultInjector
import GuardCore
import XCTest

/// The guard's `.initial` promise on hand-built histories: the initial notification comes before any change, and once
/// the observe and every change overlapping it returned, the last value heard is the key's (``InitialFirstChecks``).
///
/// The base: an observe of `gauge` with `.initial` + `.new` on worker 1 at 10...30, whose read races a set of `gauge`
/// 0 → 5 on worker 2 at 15...18.
final class InitialFirstChecksTests: XCTestCase {
    private let guardOracle = Oracle(checksGuardSemantics: true)
    private let rawOracle = Oracle(checksGuardSemantics: false)

    private struct Race {
        var builder = HistoryBuilder()
        let observe: OperationRecord
        let set: OperationRecord

        init(options: StressOptions = [.initial, .new]) {
            var observe = builder.observe(.gauge, options: options, at: 10, returning: 30, worker: 1)
            observe.newValue = StressValue.racedRead
            builder.history.operations = builder.history.operations.map { $0.id == observe.id ? observe : $0 }
            self.observe = observe
            set = builder.mutate(.gauge, from: 0, to: 5, at: 15, returning: 18, worker: 2)
        }

        /// The initial notification, carrying `value`, on the observing worker at `time`.
        mutating func initial(_ value: Int, at time: UInt64) {
            builder.add(
                DeliveryRecord(
                    registration: observe.id, cause: observe.id, worker: 1, sequence: 0, time: time, kind: 1,
                    isPrior: false, hasOld: false, hasNew: observe.options.contains(.new),
                    oldValue: .min, newValue: observe.options.contains(.new) ? value : .min,
                    observer: HistoryBuilder.observer, keyPathMatches: true))
        }

        /// The set's notification at `time`, on the setting worker or (held back) on the observing one.
        mutating func change(at time: UInt64, heldBack: Bool, prior: Bool = false) {
            builder.deliver(set, to: observe, at: time, prior: prior, worker: heldBack ? 1 : 2)
        }

        var history: History { builder.history }
    }

    private func messages(_ report: Verdict) -> String {
        report.violations.map(\.message).joined(separator: " | ")
    }

    // MARK: Kept

    /// The guard's way: the set reaches the registration before its initial notification, waits, and the observing
    /// worker delivers it right after; the initial value is the one from before the set.
    func testAChangeHeldBackUntilAfterTheInitialNotificationPasses() {
        var race = Race()
        race.initial(0, at: 20)
        race.change(at: 21, heldBack: true)
        let report = guardOracle.evaluate(race.history, facts: RunFacts())
        assertPassed(report)
        XCTAssertEqual(report.checks[InitialFirstChecks.orderRule], 1)
        XCTAssertEqual(report.checks[InitialFirstChecks.lastValueRule], 1)
    }

    /// An initial value read after the set, with the set's change after it, ends on the set's value too.
    func testAnInitialValueReadAfterTheSetPasses() {
        var race = Race()
        race.initial(5, at: 20)
        race.change(at: 21, heldBack: true)
        assertPassed(guardOracle.evaluate(race.history, facts: RunFacts()))
    }

    // MARK: Broken

    /// The hole Foundation has: the set's change reaches the handler (on the setting worker) before the initial
    /// notification, whose value is the newer one here.
    func testAChangeBeforeTheInitialNotificationIsReported() {
        var race = Race()
        race.change(at: 16, heldBack: false)
        race.initial(5, at: 20)
        let report = guardOracle.evaluate(race.history, facts: RunFacts())
        assertOnly(.changeBeforeInitial, in: report, mentioning: "before its initial notification")
        XCTAssertTrue(messages(report).contains(OperationDescription.of(race.set)), messages(report))
        XCTAssertEqual(report.checks[InitialFirstChecks.lastValueRule], 1, "it ends on the current value")
    }

    /// The binding that ends stale: the change first, then an initial value read before the set; the handler's last
    /// value is 0 while `gauge` is 5.
    func testAnInitialValueHidingAnEarlierChangeLeavesAStaleLastValue() {
        var race = Race()
        race.change(at: 16, heldBack: false)
        race.initial(0, at: 20)
        let report = guardOracle.evaluate(race.history, facts: RunFacts())
        XCTAssertEqual(report.violationCounts, [.changeBeforeInitial: 1, .staleLastValue: 1], messages(report))
        let stale = report.violations.first { $0.kind == .staleLastValue }?.message ?? ""
        XCTAssertTrue(stale.contains("had last heard 0 while gauge was 5"), stale)
        XCTAssertTrue(stale.contains(OperationDescription.of(race.set)), stale)
    }

    /// A prior notification counts as a change: one before the initial notification is reported.
    func testAPriorNotificationBeforeTheInitialOneIsReported() {
        var race = Race(options: [.initial, .new, .prior])
        race.change(at: 16, heldBack: false, prior: true)
        race.initial(5, at: 20)
        race.change(at: 21, heldBack: true)
        let report = guardOracle.evaluate(race.history, facts: RunFacts())
        assertOnly(.changeBeforeInitial, in: report, mentioning: "heard the prior notification of")
    }

    /// On one worker the order is the worker's own (its sequence), whatever the clock says: a change recorded before
    /// the initial notification at the same instant came first.
    func testNotificationsOfOneWorkerAreOrderedByItsSequence() {
        var race = Race()
        race.change(at: 20, heldBack: true)
        race.initial(5, at: 20)
        let report = guardOracle.evaluate(race.history, facts: RunFacts())
        assertOnly(.changeBeforeInitial, in: report, mentioning: "before its initial notification")
    }

    /// A change delivered after the initial notification that is not the last one completed (a later set was lost)
    /// leaves the handler on a stale value.
    func testALostLaterChangeLeavesAStaleLastValue() {
        var race = Race()
        race.initial(0, at: 20)
        race.change(at: 21, heldBack: true)
        let later = race.builder.mutate(.gauge, from: 5, to: 9, at: 22, returning: 24, worker: 2)
        let report = guardOracle.evaluate(race.history, facts: RunFacts())
        XCTAssertEqual(report.violationCounts[.staleLastValue], 1, messages(report))
        XCTAssertTrue(messages(report).contains("while gauge was 9, set by \(OperationDescription.of(later))"))
    }

    // MARK: Not judged

    /// A registration removed by its own initial handler drops what was held for it: neither a stale value nor a
    /// missing delivery.
    func testARegistrationRemovedInsideItsObserveMayDropWhatItHeld() {
        var race = Race()
        race.initial(0, at: 20)
        race.builder.unobserve(.gauge, at: 22, returning: 23, worker: 1, parent: race.observe.id)
        let report = guardOracle.evaluate(race.history, facts: RunFacts())
        assertPassed(report)
        XCTAssertNil(report.checks[InitialFirstChecks.lastValueRule])
    }

    /// A removal while the observing worker delivers what it held may come between a held prior notification and
    /// its change: the change is dropped with the rest, as a removal between a `willChange` and its `didChange` drops
    /// it. Without a removal before the observe returned, the change must follow.
    func testARemovalWhileHeldChangesAreDeliveredMaySplitAPriorFromItsChange() {
        var race = Race(options: [.initial, .new, .prior])
        race.initial(0, at: 20)
        race.change(at: 21, heldBack: true, prior: true)
        var kept = race
        race.builder.unobserve(.gauge, at: 22, returning: 23, worker: 3)
        assertPassed(guardOracle.evaluate(race.history, facts: RunFacts()))
        kept.builder.unobserve(.gauge, at: 40, returning: 41, worker: 3)
        let report = guardOracle.evaluate(kept.history, facts: RunFacts())
        XCTAssertNotNil(report.violationCounts[.priorOrder], messages(report))
        XCTAssertTrue(messages(report).contains("but never the change"), messages(report))
    }

    /// Foundation's contract (the raw runtime) makes no such promise.
    func testTheRawRuntimeIsNotHeldToIt() {
        var race = Race()
        race.change(at: 16, heldBack: false)
        race.initial(0, at: 20)
        let report = rawOracle.evaluate(race.history, facts: RunFacts())
        XCTAssertNil(report.violationCounts[.changeBeforeInitial], messages(report))
        XCTAssertNil(report.violationCounts[.staleLastValue], messages(report))
        XCTAssertNil(report.checks[InitialFirstChecks.orderRule])
    }

    /// Keys whose notifications do not carry the key's whole value (a dependent key, a to-many property) are held to
    /// the order only.
    func testOnlyKeysWhoseNotificationsCarryTheirWholeValueAreJudgedForTheLastValue() {
        var builder = HistoryBuilder()
        let observe = builder.observe(.sum, options: [.initial, .new], at: 10, returning: 20, initialValue: 0, worker: 1)
        builder.deliverInitial(to: observe, at: 12)
        let report = guardOracle.evaluate(builder.history, facts: RunFacts())
        assertPassed(report)
        XCTAssertEqual(report.checks[InitialFirstChecks.orderRule], 1)
        XCTAssertNil(report.checks[InitialFirstChecks.lastValueRule])
    }

    // MARK: Neighbouring rules

    /// A prior notification and its change recorded on two workers (as when the guard held the prior back and the
    /// change came once it stopped holding) are ordered by time: the workers' own sequences say nothing about each
    /// other.
    func testAPriorAndItsChangeOnTwoWorkersAreOrderedByTime() {
        var builder = HistoryBuilder()
        let observe = builder.observe(.k0, options: [.new, .prior], at: 10, returning: 20, worker: 1)
        let other = builder.observe(.k2, options: [.new], at: 1, returning: 2, worker: 1)
        let earlier = builder.mutate(.k2, from: 0, to: 1, at: 3, returning: 9, worker: 1)
        // Worker 1 records other notifications first, so its sequence for the prior is the higher one.
        for time: UInt64 in [4, 5, 6] { builder.deliver(earlier, to: other, at: time) }
        builder.history.deliveries.removeAll()
        let set = builder.mutate(.k0, from: 0, to: 7, at: 25, returning: 35, worker: 2)
        builder.deliver(set, to: observe, at: 26, prior: true, worker: 1)
        builder.deliver(set, to: observe, at: 30, worker: 2)
        let report = guardOracle.evaluate(builder.history, facts: RunFacts())
        XCTAssertNil(report.violationCounts[.priorOrder], messages(report))
    }

    /// A change already under way when the registration was made may reach it without the old value (never read);
    /// one that began after the observe returned must carry it.
    func testOnlyAChangeUnderWayMayComeWithoutTheOldValue() {
        var builder = HistoryBuilder()
        let observe = builder.observe(.k0, options: [.new, .old], at: 10, returning: 20)
        let underWay = builder.mutate(.k0, from: 0, to: 1, at: 8, returning: 22, worker: 2)
        let later = builder.mutate(.k0, from: 1, to: 2, at: 30, returning: 40, worker: 2)
        var joined = builder.deliver(underWay, to: observe, at: 21)
        var heard = builder.deliver(later, to: observe, at: 35)
        builder.history.deliveries.removeAll()
        joined.hasOld = false
        joined.oldValue = .min
        heard.hasOld = false
        heard.oldValue = .min
        builder.add(joined)
        builder.add(heard)
        let report = guardOracle.evaluate(builder.history, facts: RunFacts())
        assertOnly(.valueMismatch, in: report, mentioning: "no old value")
        XCTAssertTrue(messages(report).contains(OperationDescription.of(later)), messages(report))
    }
}
