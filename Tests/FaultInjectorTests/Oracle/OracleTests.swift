@testable import FaultInjector
import GuardCore
import XCTest

/// The oracle on hand-built histories: a clean one passes; each rule fires on a history that breaks exactly it.
final class OracleTests: XCTestCase {
    private let guardOracle = Oracle(checksGuardSemantics: true)
    private let rawOracle = Oracle(checksGuardSemantics: false)

    /// The clean base: observe k0 [new,old] (10–20) → registered; mutate k0 0→1 (30–40), heard at 35;
    /// unobserve k0 (50–60) → removed; mutate k0 1→2 (70–80), not heard.
    private struct Base {
        var builder = HistoryBuilder()
        let observe: OperationRecord
        let firstChange: OperationRecord
        let unobserve: OperationRecord
        let secondChange: OperationRecord

        init(options: StressOptions = [.new, .old], deliverFirstChange: Bool = true) {
            observe = builder.observe(.k0, options: options, at: 10, returning: 20)
            firstChange = builder.mutate(.k0, from: 0, to: 1, at: 30, returning: 40)
            unobserve = builder.unobserve(.k0, at: 50, returning: 60)
            secondChange = builder.mutate(.k0, from: 1, to: 2, at: 70, returning: 80)
            if deliverFirstChange { builder.deliver(firstChange, to: observe, at: 35) }
        }

        var history: History { builder.history }
    }

    // MARK: Clean histories

    func testCleanHistoryPasses() {
        let base = Base()
        for oracle in [guardOracle, rawOracle] {
            let report = oracle.evaluate(base.history, facts: RunFacts())
            XCTAssertTrue(report.passed, report.violations.map(\.message).joined(separator: " | "))
            XCTAssertEqual(report.signature, "")
            XCTAssertEqual(report.totalViolations, 0)
            XCTAssertEqual(report.checks["a live registration hears every change"], 1)
            XCTAssertEqual(report.checks["notification values"], 1)
        }
        let report = guardOracle.evaluate(base.history, facts: RunFacts())
        XCTAssertEqual(report.checks["observe/unobserve results linearizable"], 1)
        XCTAssertNil(rawOracle.evaluate(base.history, facts: RunFacts()).checks["observe/unobserve results linearizable"])
    }

    func testCleanHistoryWithInitialPriorAndDependentKeyPasses() {
        var builder = HistoryBuilder()
        let observe = builder.observe(.k1, options: [.initial, .new, .old, .prior], at: 10, returning: 20, initialValue: 0)
        builder.deliverInitial(to: observe, at: 15)
        let sum = builder.observe(.sum, options: [.new, .old], at: 21, returning: 25)
        let change = builder.mutate(.k1, from: 0, to: 7, sum: 4, at: 30, returning: 40)
        builder.deliver(change, to: observe, at: 31, prior: true)
        builder.deliver(change, to: sum, at: 32)
        builder.deliver(change, to: observe, at: 33)
        // k2 does not affect sum or k1: nobody hears it.
        builder.mutate(.k2, from: 0, to: 9, sum: 11, at: 45, returning: 46)
        let report = guardOracle.evaluate(builder.history, facts: RunFacts())
        XCTAssertTrue(report.passed, report.violations.map(\.message).joined(separator: " | "))
        XCTAssertEqual(report.checks["initial exactly once"], 1)
        XCTAssertEqual(report.checks["a live registration hears every change"], 2)
    }

    // MARK: Each rule

    func testMissingDeliveryToARegistrationLiveThroughoutAChange() {
        let base = Base(deliverFirstChange: false)
        let report = guardOracle.evaluate(base.history, facts: RunFacts())
        assertOnly(.missingDelivery, in: report, mentioning: "was live throughout")
    }

    /// A change that overlaps the unobserve may or may not be heard: no missing delivery then.
    func testChangeOverlappingTheRemovalNeedNotBeHeard() {
        var builder = HistoryBuilder()
        builder.observe(.k0, at: 10, returning: 20)
        builder.mutate(.k0, from: 0, to: 1, at: 45, returning: 55)
        builder.unobserve(.k0, at: 50, returning: 60)
        XCTAssertTrue(guardOracle.evaluate(builder.history, facts: RunFacts()).passed)
    }

    /// Raw KVO removes by observer: after a release-controller, an unobserve through the observer's new controller
    /// may remove the registration made through the old one, so a change after it need not be heard. (The oracle
    /// used to key removals by controller only and reported a missing delivery here.)
    func testRawRemovalThroughAnotherControllerOfTheSameObserverMayEndARegistration() {
        var builder = HistoryBuilder()
        let sibling = 101
        builder.history.controllerObservers[sibling] = HistoryBuilder.observer
        builder.observe(.k0, at: 10, returning: 20, outcome: .unknown)
        builder.unobserve(.k0, at: 30, returning: 40, outcome: .unknown, controller: sibling)
        builder.mutate(.k0, from: 0, to: 1, at: 50, returning: 60)
        let report = rawOracle.evaluate(builder.history, facts: RunFacts())
        XCTAssertTrue(report.passed, report.violations.map(\.message).joined(separator: " | "))

        // A controller of another observer removes nothing of ours: the change must be heard.
        var other = HistoryBuilder()
        other.history.controllerObservers[sibling] = HistoryBuilder.observer + 1
        other.observe(.k0, at: 10, returning: 20, outcome: .unknown)
        other.unobserve(.k0, at: 30, returning: 40, outcome: .unknown, controller: sibling)
        other.mutate(.k0, from: 0, to: 1, at: 50, returning: 60)
        assertOnly(.missingDelivery, in: rawOracle.evaluate(other.history, facts: RunFacts()), mentioning: "was live throughout")
    }

    /// The guard keys registrations by controller: another controller's unobserve leaves ours live.
    func testGuardRemovalThroughAnotherControllerDoesNotEndARegistration() {
        var builder = HistoryBuilder()
        let sibling = 101
        builder.history.controllerObservers[sibling] = HistoryBuilder.observer
        builder.observe(.k0, at: 10, returning: 20)
        builder.unobserve(.k0, at: 30, returning: 40, outcome: .notRegistered, controller: sibling)
        builder.mutate(.k0, from: 0, to: 1, at: 50, returning: 60)
        let report = guardOracle.evaluate(builder.history, facts: RunFacts())
        assertOnly(.missingDelivery, in: report, mentioning: "was live throughout")
    }

    func testDuplicateDelivery() {
        var base = Base()
        base.builder.deliver(base.firstChange, to: base.observe, at: 36)
        let report = guardOracle.evaluate(base.history, facts: RunFacts())
        assertOnly(.duplicateDelivery, in: report, mentioning: "2 times")
    }

    func testDeliveryOfAChangeMadeAfterUnobserveReturned() {
        var base = Base()
        base.builder.deliver(base.secondChange, to: base.observe, at: 75)
        let report = guardOracle.evaluate(base.history, facts: RunFacts())
        assertOnly(
            .deliveryOutsideRegistration, in: report,
            mentioning: "no change made after unobserve returned is delivered to the removed registration, but")
        XCTAssertGreaterThan(report.checks[DeliveryChecks.removalRule, default: 0], 0)
        // Raw KVO promises no such thing (its removals give no result): the raw oracle does not flag it.
        XCTAssertTrue(rawOracle.evaluate(base.history, facts: RunFacts()).passed)
    }

    /// `unobserveAll` has no outcome to name: the message ends with its return, not with "returned none".
    func testDeliveryOfAChangeMadeAfterUnobserveAllReturned() {
        var builder = HistoryBuilder()
        let observe = builder.observe(.k0, at: 10, returning: 20)
        builder.unobserveAll(at: 50, returning: 60, removed: 1)
        let change = builder.mutate(.k0, from: 0, to: 1, at: 70, returning: 80)
        builder.deliver(change, to: observe, at: 75)
        let report = guardOracle.evaluate(builder.history, facts: RunFacts())
        assertOnly(.deliveryOutsideRegistration, in: report, mentioning: "unobserveAll")
        let message = report.violations.first?.message ?? ""
        XCTAssertTrue(message.hasSuffix("returned"), message)
        XCTAssertFalse(message.contains("none"), message)
    }

    /// A `.prior` registration hears of a late change twice: the two violations say which notification each was.
    func testPriorAndPostNotificationsAfterRemovalAreToldApart() {
        var builder = HistoryBuilder()
        let observe = builder.observe(.k0, options: [.new, .old, .prior], at: 10, returning: 20)
        builder.unobserve(.k0, at: 30, returning: 40)
        let change = builder.mutate(.k0, from: 0, to: 1, at: 50, returning: 60)
        builder.deliver(change, to: observe, at: 52, prior: true)
        builder.deliver(change, to: observe, at: 58)
        let report = guardOracle.evaluate(builder.history, facts: RunFacts())
        let messages = report.violations.filter { $0.kind == .deliveryOutsideRegistration }.map(\.message)
        XCTAssertEqual(messages.count, 2, "\(messages)")
        XCTAssertEqual(Set(messages).count, 2, "two identical lines: \(messages)")
        XCTAssertEqual(messages.filter { $0.contains("heard (a prior notification) about") }.count, 1, "\(messages)")
    }

    func testDeliveryToADuplicateRegistration() {
        var base = Base()
        let duplicate = base.builder.observe(.k0, at: 22, returning: 25, outcome: .duplicate)
        base.builder.deliver(base.firstChange, to: duplicate, at: 36)
        let report = guardOracle.evaluate(base.history, facts: RunFacts())
        assertOnly(.unexpectedDelivery, in: report, mentioning: "reported duplicate")
    }

    func testWrongNewValue() {
        var base = Base(deliverFirstChange: false)
        base.builder.deliver(base.firstChange, to: base.observe, at: 35, new: 5)
        let report = guardOracle.evaluate(base.history, facts: RunFacts())
        assertOnly(.valueMismatch, in: report, mentioning: "new 5 instead of 1")
    }

    func testWrongOldValue() {
        var base = Base(deliverFirstChange: false)
        base.builder.deliver(base.firstChange, to: base.observe, at: 35, old: 7)
        let report = guardOracle.evaluate(base.history, facts: RunFacts())
        assertOnly(.valueMismatch, in: report, mentioning: "old 7 instead of 0")
    }

    func testWrongSumValueForADependentKey() {
        var builder = HistoryBuilder()
        let sum = builder.observe(.sum, options: [.new], at: 10, returning: 20)
        let change = builder.mutate(.k0, from: 2, to: 5, sum: 10, at: 30, returning: 40)
        builder.deliver(change, to: sum, at: 35, new: 5)  // the k0 value, not the sum (13)
        let report = guardOracle.evaluate(builder.history, facts: RunFacts())
        assertOnly(.valueMismatch, in: report, mentioning: "new 5 instead of 13")
    }

    func testPriorAfterItsChange() {
        var base = Base(options: [.new, .old, .prior], deliverFirstChange: false)
        base.builder.deliver(base.firstChange, to: base.observe, at: 35)
        base.builder.deliver(base.firstChange, to: base.observe, at: 36, prior: true)
        let report = guardOracle.evaluate(base.history, facts: RunFacts())
        assertOnly(.priorOrder, in: report, mentioning: "after the change")
    }

    func testPriorMissing() {
        let base = Base(options: [.new, .old, .prior])
        let report = guardOracle.evaluate(base.history, facts: RunFacts())
        assertOnly(.priorOrder, in: report, mentioning: "without the prior notification")
    }

    /// A registration that joined while a change was under way may miss it, but one that heard its prior
    /// notification and stayed registered must hear the change too.
    func testPriorWithoutItsChange() {
        var builder = HistoryBuilder()
        let change = builder.mutate(.k0, from: 0, to: 1, at: 10, returning: 40)
        let observe = builder.observe(.k0, options: [.new, .prior], at: 12, returning: 20)
        builder.deliver(change, to: observe, at: 15, prior: true)
        let report = guardOracle.evaluate(builder.history, facts: RunFacts())
        assertOnly(.priorOrder, in: report, mentioning: "heard the prior notification of")
        XCTAssertTrue(report.violations.first?.message.contains("but never the change") ?? false)
    }

    /// The same prior without its change is fine when the registration may have ended before the change returned.
    func testPriorWithoutItsChangeIsFineWhenTheRegistrationMayHaveEndedFirst() {
        var builder = HistoryBuilder()
        let change = builder.mutate(.k0, from: 0, to: 1, at: 10, returning: 40)
        let observe = builder.observe(.k0, options: [.new, .prior], at: 12, returning: 20)
        builder.deliver(change, to: observe, at: 15, prior: true)
        builder.unobserve(.k0, at: 30, returning: 35)
        let report = guardOracle.evaluate(builder.history, facts: RunFacts())
        XCTAssertTrue(report.passed, report.violations.map(\.message).joined(separator: " | "))
    }

    func testInitialMissing() {
        var builder = HistoryBuilder()
        builder.observe(.k2, options: [.initial, .new], at: 10, returning: 20)
        let report = guardOracle.evaluate(builder.history, facts: RunFacts())
        assertOnly(.initialNotExactlyOnce, in: report, mentioning: "without its initial notification")
    }

    /// Every `.registered` with `.initial` gets its initial notification, even when a removal overlaps the observe
    /// call (the oracle no longer exempts that case).
    func testInitialMissingIsAViolationEvenWhenARemovalOverlapsTheObserve() {
        var builder = HistoryBuilder()
        builder.observe(.k2, options: [.initial, .new], at: 10, returning: 20)
        builder.unobserve(.k2, at: 15, returning: 25)
        let report = guardOracle.evaluate(builder.history, facts: RunFacts())
        assertOnly(.initialNotExactlyOnce, in: report, mentioning: "without its initial notification")
    }

    func testInitialTwice() {
        var builder = HistoryBuilder()
        let observe = builder.observe(.k2, options: [.initial, .new], at: 10, returning: 20, initialValue: 3)
        builder.deliverInitial(to: observe, at: 12)
        builder.deliverInitial(to: observe, at: 14)
        let report = guardOracle.evaluate(builder.history, facts: RunFacts())
        assertOnly(.initialNotExactlyOnce, in: report, mentioning: "got 2 initial notifications")
    }

    func testInitialWithTheWrongValue() {
        var builder = HistoryBuilder()
        let observe = builder.observe(.k2, options: [.initial, .new], at: 10, returning: 20, initialValue: 3)
        var initial = builder.deliverInitial(to: observe, at: 12)
        builder.history.deliveries.removeAll()
        initial.newValue = 4
        builder.add(initial)
        let report = guardOracle.evaluate(builder.history, facts: RunFacts())
        assertOnly(.valueMismatch, in: report, mentioning: "new 4 instead of 3")
    }

    func testMisroutedDeliveryNamingAnotherObserver() {
        var base = Base(deliverFirstChange: false)
        var delivery = base.builder.deliver(base.firstChange, to: base.observe, at: 35)
        base.builder.history.deliveries.removeAll()
        delivery.observer = 999
        base.builder.add(delivery)
        let report = guardOracle.evaluate(base.history, facts: RunFacts())
        assertOnly(.misroutedDelivery, in: report, mentioning: "named observer 999")
    }

    func testRegisteredTwiceWithoutRemovalIsNotLinearizable() {
        var builder = HistoryBuilder()
        builder.observe(.k0, at: 10, returning: 20)
        builder.observe(.k0, at: 30, returning: 40)
        let report = guardOracle.evaluate(builder.history, facts: RunFacts())
        assertOnly(.nonLinearizable, in: report, mentioning: "controller 100, object 300, k0")
        XCTAssertTrue(rawOracle.evaluate(builder.history, facts: RunFacts()).passed)
    }

    func testNotRegisteredAfterRemovalIsNotLinearizable() {
        var base = Base()
        base.builder.unobserve(.k0, at: 90, returning: 95, outcome: .notRegistered)
        let report = guardOracle.evaluate(base.history, facts: RunFacts())
        assertOnly(.nonLinearizable, in: report, mentioning: "notRegistered")
    }

    func testInvalidResultIsUnexpected() {
        var builder = HistoryBuilder()
        builder.observe(.k0, at: 10, returning: 20, outcome: .invalid)
        let report = guardOracle.evaluate(builder.history, facts: RunFacts())
        assertOnly(.unexpectedResult, in: report, mentioning: "reported invalid")
    }

    // MARK: Facts

    func testRuntimeMisuseInFacts() {
        var facts = RunFacts()
        facts.misuses = [.notRegistered: 3]
        let report = guardOracle.evaluate(Base().history, facts: facts)
        XCTAssertFalse(report.passed)
        XCTAssertEqual(report.violationCounts, [.runtimeMisuse: 1])
        XCTAssertEqual(report.runtimeMisuses, [.notRegistered: 3])
        XCTAssertEqual(report.signature, "runtime-misuse(notRegistered)")
        XCTAssertEqual(report.violations.first?.message, "3 × notRegistered reached the runtime")
    }

    func testSeveralMisuseKindsShareOneSignatureEntry() {
        var facts = RunFacts()
        facts.misuses = [.observerDeallocated: 1, .notRegistered: 2, .deallocatedWhileObserved: 0]
        let report = rawOracle.evaluate(History(), facts: facts)
        XCTAssertEqual(report.violationCounts, [.runtimeMisuse: 2])
        XCTAssertEqual(report.runtimeMisuses, [.notRegistered: 2, .observerDeallocated: 1], "a zero count is no misuse")
        XCTAssertEqual(report.signature, "runtime-misuse(notRegistered,observerDeallocated)")
    }

    func testLeakInFacts() {
        var facts = RunFacts()
        facts.survivors = ["observer": 1]
        let report = guardOracle.evaluate(Base().history, facts: facts)
        assertOnly(.leak, in: report, mentioning: "1 released observer is still alive")

        var tables = RunFacts()
        tables.liveObservancesAfterTeardown = 2
        assertOnly(.leak, in: guardOracle.evaluate(Base().history, facts: tables), mentioning: "the runtime still holds 2 registrations")
    }

    func testDeadlockInFactsSkipsTheHistoryChecks() {
        var facts = RunFacts()
        facts.deadlock = "no worker finished an operation for 20 s: worker 3 stuck"
        // The history would also miss a delivery, but a deadlocked run's history is not checked.
        let report = guardOracle.evaluate(Base(deliverFirstChange: false).history, facts: facts)
        assertOnly(.deadlock, in: report, mentioning: "worker 3 stuck")
        XCTAssertNil(report.checks["a live registration hears every change"])
    }

    func testCombinedSignatureIsSortedByKind() {
        var facts = RunFacts()
        facts.misuses = [.notRegistered: 1]
        facts.survivors = ["object": 2]
        let report = guardOracle.evaluate(Base(deliverFirstChange: false).history, facts: facts)
        XCTAssertEqual(report.violationCounts, [.runtimeMisuse: 1, .leak: 1, .missingDelivery: 1])
        XCTAssertEqual(report.signature, "leak+missing-delivery+runtime-misuse(notRegistered)")
    }

    // MARK: Report bookkeeping

    func testReportKeepsTheFirstFiveOfAKindAndCountsAll() {
        var builder = HistoryBuilder()
        let observe = builder.observe(.k0, at: 10, returning: 20)
        var changes: [OperationRecord] = []
        for index in 0..<7 {
            let start = UInt64(100 + 20 * index)
            changes.append(builder.mutate(.k0, from: index, to: index + 1, at: start, returning: start + 10))
        }
        for change in changes {
            builder.deliver(change, to: observe, at: change.call + 1)
            builder.deliver(change, to: observe, at: change.call + 2)
        }
        let report = guardOracle.evaluate(builder.history, facts: RunFacts())
        XCTAssertEqual(report.violationCounts, [.duplicateDelivery: 7])
        XCTAssertEqual(report.totalViolations, 7)
        XCTAssertEqual(report.violations.count, Verdict.keptPerKind)
    }
}
