// A dotted key path whose middle object is replaced and put back while a change of that object is under way: the
// forwarder that relayed the change's prior notification is installed again, so the change reaches the observer once.
import Foundation
import GuardCore
import XCTest

final class ReturningForwarderTests: XCTestCase {
    private final class Owner: @unchecked Sendable {}

    /// KeyPathForwarder.detach()'s doc: "a re-wiring that brings the chain back to its target installs it again
    /// (``resumeIfAwaitingChanges()``): each change reaches the root observance once". The oracle's rule
    /// `duplicate-delivery` checks the same in campaigns (the dotted-leaf profile re-points links while the leaf is set).
    ///
    /// The first account's balance announces a change (its prior notification reaches the guard's handler); before the
    /// change ends, the person's account is replaced and put back. Without taking the waiting forwarder back, the new
    /// forwarder on the first account joins the change under way and delivers it again: `prior, new 1` twice.
    func testPuttingTheMiddleObjectBackDuringItsChangeDeliversThatChangeOnce() {
        let owner = Owner()
        let controller = ObservationController(observer: owner)
        let person = Person()
        let first = Account()
        first.balance = 1
        let second = Account()
        second.balance = 2
        person.account = first
        let seen = PriorPairingLines()
        XCTAssertEqual(
            controller.observe(person, keyPath: "account.balance", options: [.prior, .new]) { _, _, change in
                seen.append(change.isPrior ? "prior" : "new \(change.newValue.map { "\($0)" } ?? "-")")
            }, .registered)
        assertNoMisuse {
            first.willChangeValue(forKey: "balance")
            person.account = second
            person.account = first
            first.didChangeValue(forKey: "balance")
        }
        XCTAssertEqual(seen.items, ["prior", "prior", "new 2", "prior", "new 1", "new 1"])
        controller.unobserveAll()
        XCTAssertEqual(first.observationCount, 0, "a forwarder stayed on the first account")
        XCTAssertEqual(second.observationCount, 0, "a forwarder stayed on the second account")
    }

    /// Without `.prior` no forwarder waits for a change: the one made when the account is put back joins the change
    /// under way and alone delivers it, once, however often the account was replaced; later changes follow the
    /// person's current account.
    func testPuttingTheMiddleObjectBackRepeatedlyKeepsOneForwarderPerChange() {
        let owner = Owner()
        let controller = ObservationController(observer: owner)
        let person = Person()
        let first = Account()
        let second = Account()
        second.balance = 2
        person.account = first
        let seen = PriorPairingLines()
        XCTAssertEqual(
            controller.observe(person, keyPath: "account.balance", options: [.new]) { _, _, change in
                seen.append("new \(change.newValue.map { "\($0)" } ?? "-")")
            }, .registered)
        assertNoMisuse {
            first.willChangeValue(forKey: "balance")
            for _ in 0..<3 {
                person.account = second
                person.account = first
            }
            first.didChangeValue(forKey: "balance")
            first.balance = 7
            second.balance = 8
        }
        XCTAssertEqual(seen.items, ["new 2", "new 0", "new 2", "new 0", "new 2", "new 0", "new 0", "new 7"])
        controller.unobserveAll()
        XCTAssertEqual(first.observationCount, 0, "a forwarder stayed on the first account")
        XCTAssertEqual(second.observationCount, 0, "a forwarder stayed on the second account")
    }

    /// With `.prior`, several replacements during one open change: the prior notification and its change pair up, once.
    func testPuttingTheMiddleObjectBackRepeatedlyWithPriorPairsTheOpenChangeOnce() {
        let owner = Owner()
        let controller = ObservationController(observer: owner)
        let person = Person()
        let first = Account()
        first.balance = 1
        let second = Account()
        second.balance = 2
        person.account = first
        let seen = PriorPairingLines()
        XCTAssertEqual(
            controller.observe(person, keyPath: "account.balance", options: [.prior, .new]) { _, _, change in
                seen.append(change.isPrior ? "prior" : "new \(change.newValue.map { "\($0)" } ?? "-")")
            }, .registered)
        assertNoMisuse {
            first.willChangeValue(forKey: "balance")
            for _ in 0..<3 {
                person.account = second
                person.account = first
            }
            first.didChangeValue(forKey: "balance")
        }
        let swaps = Array(repeating: ["prior", "new 2", "prior", "new 1"], count: 3).flatMap { $0 }
        XCTAssertEqual(seen.items, ["prior"] + swaps + ["new 1"])
        controller.unobserveAll()
        XCTAssertEqual(first.observationCount, 0, "a forwarder stayed on the first account")
        XCTAssertEqual(second.observationCount, 0, "a forwarder stayed on the second account")
    }
}
