@testable import FaultInjector
import GuardCore
import XCTest

/// An `.initial` + `.new` read of `link` races the object's links (``ScenarioConfiguration/racesInitialValue``): the
/// value must be one the key had during the observe, and a link that completed after the observe began must be in
/// it or delivered (the guard registers before it reads).
final class InitialValueChecksTests: XCTestCase {
    private let guardOracle = Oracle(checksGuardSemantics: true)
    private let rawOracle = Oracle(checksGuardSemantics: false)
    private static let middle = 500

    /// Another registration of `link` observes the object throughout; a link nil → 500 runs at 10...12 while the
    /// raced observe runs at 5...20 and gets its initial notification at 15 with `initial` (and, with
    /// `linkDeliveredToRacedObserve`, the link at 16, held back until then and delivered by the observing worker).
    private func history(initial: Int, linkDeliveredToRacedObserve: Bool) -> History {
        var builder = HistoryBuilder()
        var other = builder.observe(.link, options: [.new], at: 1, returning: 2)
        other.controller = HistoryBuilder.controller + 1
        Self.replace(other, in: &builder)
        let raced = Self.racedObserve(in: &builder)
        let link = builder.link(HistoryBuilder.object, to: Self.middle, at: 10, returning: 12, worker: 2)
        builder.deliver(link, to: other, at: 11)
        builder.add(
            DeliveryRecord(
                registration: raced.id, cause: raced.id, worker: 1, sequence: 0, time: 15, kind: 1, isPrior: false,
                hasOld: false, hasNew: true, oldValue: .min, newValue: initial, observer: HistoryBuilder.observer,
                keyPathMatches: true))
        if linkDeliveredToRacedObserve { builder.deliver(link, to: raced, at: 16, worker: 1) }
        return builder.history
    }

    /// The observe of `link` with `.initial` + `.new` at 5...20 whose read raced.
    private static func racedObserve(in builder: inout HistoryBuilder) -> OperationRecord {
        var raced = builder.observe(.link, options: [.initial, .new], at: 5, returning: 20, worker: 1)
        raced.newValue = StressValue.racedRead
        replace(raced, in: &builder)
        return raced
    }

    private static func replace(_ record: OperationRecord, in builder: inout HistoryBuilder) {
        builder.history.operations = builder.history.operations.map { $0.id == record.id ? record : $0 }
    }

    private func messages(_ report: Verdict) -> String {
        report.violations.map(\.message).joined(separator: " | ")
    }

    func testTheNewValueOrTheOldOneWithTheChangeDeliveredPasses() {
        let newValue = guardOracle.evaluate(history(initial: Self.middle, linkDeliveredToRacedObserve: false), facts: RunFacts())
        XCTAssertTrue(newValue.passed, messages(newValue))
        XCTAssertEqual(newValue.checks[InitialValueChecks.valueRule], 1)
        let oldAndDelivered = guardOracle.evaluate(
            history(initial: StressValue.nilValue, linkDeliveredToRacedObserve: true), facts: RunFacts())
        XCTAssertTrue(oldAndDelivered.passed, messages(oldAndDelivered))
        XCTAssertEqual(oldAndDelivered.checks[InitialValueChecks.lossRule], 1)
    }

    func testTheOldValueWithoutTheChangeLosesIt() {
        let report = guardOracle.evaluate(
            history(initial: StressValue.nilValue, linkDeliveredToRacedObserve: false), facts: RunFacts())
        // Lost, so the handler ends on the value from before the link.
        XCTAssertEqual(report.violationCounts, [.missingDelivery: 1, .staleLastValue: 1], messages(report))
        XCTAssertTrue(messages(report).contains("completed after the observe began"), messages(report))
        // Foundation's contract reads before registering: the raw runtime may lose it.
        let raw = rawOracle.evaluate(
            history(initial: StressValue.nilValue, linkDeliveredToRacedObserve: false), facts: RunFacts())
        XCTAssertNil(raw.violationCounts[.missingDelivery], messages(raw))
    }

    func testAValueTheKeyNeverHadDuringTheCallIsWrong() {
        let report = guardOracle.evaluate(history(initial: 777, linkDeliveredToRacedObserve: true), facts: RunFacts())
        XCTAssertEqual(report.violationCounts, [.valueMismatch: 1], messages(report))
        XCTAssertTrue(messages(report).contains("never had during the call"), messages(report))
    }

    func testAValueOverwrittenBeforeTheObserveBeganIsWrong() {
        var builder = HistoryBuilder()
        let earlier = builder.link(HistoryBuilder.object, to: 400, at: 1, returning: 2, worker: 2)
        let raced = Self.racedObserve(in: &builder)
        builder.add(
            DeliveryRecord(
                registration: raced.id, cause: raced.id, worker: 1, sequence: 0, time: 15, kind: 1, isPrior: false,
                hasOld: false, hasNew: true, oldValue: .min, newValue: StressValue.nilValue,
                observer: HistoryBuilder.observer, keyPathMatches: true))
        let report = guardOracle.evaluate(builder.history, facts: RunFacts())
        XCTAssertEqual(report.violationCounts, [.valueMismatch: 1], messages(report))
        XCTAssertEqual(earlier.newValue, 400)
        XCTAssertTrue(messages(report).contains("(it had 400)"), messages(report))
    }
}
