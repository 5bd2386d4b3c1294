@testable import FaultInjector
import XCTest

/// The single-key effects these tests use (key number 0).
extension LinearizabilityChecker.Effect {
    fileprivate static let observeRegistered = Self.observe(key: 0, registered: true)
    fileprivate static let observeDuplicate = Self.observe(key: 0, registered: false)
    fileprivate static let unobserveRemoved = Self.unobserve(key: 0, .removed)
    fileprivate static let unobserveAlreadyRemoved = Self.unobserve(key: 0, .alreadyRemoved)
    fileprivate static let unobserveNotRegistered = Self.unobserve(key: 0, .notRegistered)
}

/// Hand-built call histories for one (controller, object), mostly one key path. Times are arbitrary monotonic
/// instants.
final class LinearizabilityCheckerTests: XCTestCase {
    private typealias Call = LinearizabilityChecker.Call

    private func call(_ label: String, _ effect: LinearizabilityChecker.Effect, _ start: UInt64, _ end: UInt64) -> Call {
        Call(call: start, ret: end, effect: effect, label: label)
    }

    private func violation(at label: String) -> LinearizabilityChecker.Outcome {
        .violated("no order of the calls explains \(label)")
    }

    private let checker = LinearizabilityChecker()

    // MARK: Linearizable

    func testEmptyHistoryIsLinearizable() {
        XCTAssertEqual(checker.check([]), .linearizable)
    }

    func testSequentialObserveUnobserveUnobserve() {
        let calls = [
            call("observe", .observeRegistered, 0, 10),
            call("unobserve", .unobserveRemoved, 20, 30),
            call("unobserve again", .unobserveAlreadyRemoved, 40, 50),
        ]
        XCTAssertEqual(checker.check(calls), .linearizable)
    }

    func testSequentialWithDuplicateAndReRegistration() {
        let calls = [
            call("unobserve first", .unobserveNotRegistered, 0, 5),
            call("observe", .observeRegistered, 10, 20),
            call("observe again", .observeDuplicate, 30, 40),
            call("unobserve", .unobserveRemoved, 50, 60),
            call("observe anew", .observeRegistered, 70, 80),
            call("unobserve anew", .unobserveRemoved, 90, 100),
        ]
        XCTAssertEqual(checker.check(calls), .linearizable)
    }

    func testCallsNeedNotBeGivenInTimeOrder() {
        let calls = [
            call("unobserve", .unobserveRemoved, 20, 30),
            call("unobserve again", .unobserveAlreadyRemoved, 40, 50),
            call("observe", .observeRegistered, 0, 10),
        ]
        XCTAssertEqual(checker.check(calls), .linearizable)
    }

    /// The unobserve is called after the observe and returns before it: only "observe, then unobserve" explains
    /// `removed`.
    func testOverlappingObserveAndUnobserveThatFitOnlyOneOrder() {
        let calls = [
            call("observe", .observeRegistered, 0, 100),
            call("unobserve", .unobserveRemoved, 10, 50),
        ]
        XCTAssertEqual(checker.check(calls), .linearizable)
    }

    /// Three overlapping calls whose results force the order C (notRegistered), A (registered), B (removed).
    func testThreeOverlappingCallsForcedIntoOneOrder() {
        let calls = [
            call("A observe", .observeRegistered, 0, 100),
            call("B unobserve", .unobserveRemoved, 10, 90),
            call("C unobserve", .unobserveNotRegistered, 20, 80),
        ]
        XCTAssertEqual(checker.check(calls), .linearizable)
    }

    /// Two overlapping observes: one must have registered, the other seen the duplicate, in either order.
    func testConcurrentObservesRegisteredAndDuplicate() {
        let calls = [
            call("observe 1", .observeDuplicate, 0, 50),
            call("observe 2", .observeRegistered, 10, 60),
        ]
        XCTAssertEqual(checker.check(calls), .linearizable)
    }

    func testBulkRemovalLeadsToAlreadyRemoved() {
        let calls = [
            call("observe", .observeRegistered, 0, 10),
            call("unobserve-all", .clear, 20, 30),
            call("unobserve", .unobserveAlreadyRemoved, 40, 50),
        ]
        XCTAssertEqual(checker.check(calls), .linearizable)
        let clearWithNothing = [
            call("unobserve-all", .clear, 0, 10),
            call("unobserve", .unobserveNotRegistered, 20, 30),
        ]
        XCTAssertEqual(checker.check(clearWithNothing), .linearizable)
    }

    /// At equal instants the call counts first: a call made at the instant another returns may still be ordered
    /// before it.
    func testCallAtTheInstantAnotherReturnsMayComeFirst() {
        let calls = [
            call("observe", .observeRegistered, 0, 10),
            call("unobserve", .unobserveNotRegistered, 10, 20),
        ]
        XCTAssertEqual(checker.check(calls), .linearizable)
    }

    // MARK: Not linearizable

    func testRegisteredTwiceInSequenceWithNoRemoval() {
        let calls = [
            call("observe 1", .observeRegistered, 0, 10),
            call("observe 2", .observeRegistered, 20, 30),
        ]
        XCTAssertEqual(checker.check(calls), violation(at: "observe 2"))
    }

    func testNotRegisteredAfterARemoval() {
        let calls = [
            call("observe", .observeRegistered, 0, 10),
            call("unobserve", .unobserveRemoved, 20, 30),
            call("unobserve again", .unobserveNotRegistered, 40, 50),
        ]
        XCTAssertEqual(checker.check(calls), violation(at: "unobserve again"))
    }

    func testDuplicateWithNothingRegistered() {
        XCTAssertEqual(checker.check([call("observe", .observeDuplicate, 0, 10)]), violation(at: "observe"))
        let afterRemoval = [
            call("observe", .observeRegistered, 0, 10),
            call("unobserve", .unobserveRemoved, 20, 30),
            call("observe again", .observeDuplicate, 40, 50),
        ]
        XCTAssertEqual(checker.check(afterRemoval), violation(at: "observe again"))
    }

    func testRemovedWithNothingRegistered() {
        XCTAssertEqual(checker.check([call("unobserve", .unobserveRemoved, 0, 10)]), violation(at: "unobserve"))
    }

    func testAlreadyRemovedWhileStillRegistered() {
        let calls = [
            call("observe", .observeRegistered, 0, 10),
            call("unobserve", .unobserveAlreadyRemoved, 20, 30),
        ]
        XCTAssertEqual(checker.check(calls), violation(at: "unobserve"))
    }

    /// Overlap does not excuse everything: `alreadyRemoved` needs an earlier removal that no call provides.
    func testOverlappingCallsThatNoOrderExplains() {
        let calls = [
            call("observe", .observeRegistered, 0, 100),
            call("unobserve", .unobserveAlreadyRemoved, 10, 50),
        ]
        XCTAssertEqual(checker.check(calls), violation(at: "unobserve"))
    }

    /// The order of real time must be respected: the removal returned before the observe was called.
    func testRemovalThatReturnedBeforeTheObserveWasCalled() {
        let calls = [
            call("unobserve", .unobserveRemoved, 0, 10),
            call("observe", .observeRegistered, 20, 30),
        ]
        XCTAssertEqual(checker.check(calls), violation(at: "unobserve"))
    }

    // MARK: Inconclusive

    func testBudgetExhaustionIsInconclusive() {
        var tight = LinearizabilityChecker()
        tight.budget = 0
        XCTAssertEqual(tight.check([call("observe", .observeRegistered, 0, 10)]), .inconclusive)
    }

    func testMoreThan128ConcurrentCallsIsInconclusive() {
        let calls = (0..<129).map { call("observe \($0)", $0 == 0 ? .observeRegistered : .observeDuplicate, UInt64($0), 1_000) }
        XCTAssertEqual(checker.check(calls), .inconclusive)
        let fewer = (0..<10).map { call("observe \($0)", $0 == 0 ? .observeRegistered : .observeDuplicate, UInt64($0), 1_000) }
        XCTAssertEqual(checker.check(fewer), .linearizable)
    }
}
