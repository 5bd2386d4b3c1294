import Foundation
@testable import GuardCore
import XCTest

/// A holder of an account whose `summary` depends on `account.balance`.
private final class SummaryHolder: KVOObject, @unchecked Sendable {
    @Observed var account: Account? = nil
    var summary: Int { account?.balance ?? -1 }

    override class func keyPathsForValuesAffectingValue(forKey key: String) -> Set<String> {
        key == "summary" ? ["account.balance"] : []
    }

    override func value(forKey key: String) -> Any? {
        key == "summary" ? summary : super.value(forKey: key)
    }
}

/// Every prior notification is followed by its change, also for a dotted or dependent key path whose middle object a
/// prior handler replaces between the two (the forwarder that relayed the prior notification is uninstalled then).
final class PriorPairingTests: XCTestCase {
    /// "P old->new" or "C old->new", -9 for a value not sent.
    private static func note(_ change: KeyValueChange) -> String {
        "\(change.isPrior ? "P" : "C") \(change.oldValue(as: Int.self) ?? -9)->\(change.newValue(as: Int.self) ?? -9)"
    }

    func testADottedPriorIsFollowedByItsChangeWhenItsHandlerReplacesTheMiddleObject() {
        let holder = SummaryHolder()
        let first = Account()
        let second = Account()
        holder.account = first
        let observer = GuardTestObserver()
        let notes = TestBox<[String]>([])
        let replaced = TestBox(false)
        let misuses = recordingMisuse {
            let (sink, controller) = makeController(for: observer)
            controller.observe(holder, keyPath: "account.balance", options: [.prior, .old, .new]) { _, holder, change in
                notes.mutate { $0.append(Self.note(change)) }
                guard change.isPrior, !replaced.get() else { return }
                replaced.set(true)
                holder.account = second
            }
            first.balance = 10
            // The first account is no longer followed: its changes are silent now.
            first.balance = 11
            second.balance = 20
            controller.unobserveAll()
            XCTAssertEqual(sink.events, [])
        }
        XCTAssertEqual(misuses, [])
        XCTAssertEqual(
            notes.get(),
            [
                "P 0->-9",  // first.balance = 10 begins
                "P 0->-9", "C 0->0",  // the handler replaces the account inside it
                // first.balance = 10 ends: the change the first prior announced, with the new value read along the
                // current chain (the first account is no longer on it), as Foundation reads a nested key path's value.
                "C 0->0",
                "P 0->-9", "C 0->20",  // second.balance = 20
            ])
    }

    func testADependentKeysPriorIsFollowedByItsChangeWhenAPriorHandlerReplacesTheMiddleObject() {
        let holder = SummaryHolder()
        let first = Account()
        let second = Account()
        holder.account = first
        let observer = GuardTestObserver()
        let summary = TestBox<[String]>([])
        let replaced = TestBox(false)
        let misuses = recordingMisuse {
            let (_, controller) = makeController(for: observer)
            // Registered first, so the relay of `summary` hears the balance's prior notification before the handler
            // below replaces the account.
            controller.observe(holder, keyPath: "summary", options: [.prior, .old, .new]) { _, _, change in
                summary.mutate { $0.append(Self.note(change)) }
            }
            controller.observe(holder, keyPath: "account.balance", options: [.prior]) { _, holder, change in
                guard change.isPrior, !replaced.get() else { return }
                replaced.set(true)
                holder.account = second
            }
            first.balance = 10
            second.balance = 20
            controller.unobserveAll()
        }
        XCTAssertEqual(misuses, [])
        let notes = summary.get()
        XCTAssertEqual(notes.filter { $0.hasPrefix("P") }.count, notes.filter { $0.hasPrefix("C") }.count, "\(notes)")
        XCTAssertEqual(notes.last, "C 0->20", "\(notes)")
        XCTAssertEqual(ManualChanges.pendingCountOnThisThread, 0)
    }

    func testAForwarderDetachedWithAPriorOpenUnregistersOnceTheChangeCame() {
        let holder = SummaryHolder()
        let first = Account()
        holder.account = first
        let observer = GuardTestObserver()
        let (_, controller) = makeController(for: observer)
        let replaced = TestBox(false)
        let observancesBefore = first.observedKeyPaths.count
        controller.observe(holder, keyPath: "account.balance", options: [.prior]) { _, holder, change in
            guard change.isPrior, !replaced.get() else { return }
            replaced.set(true)
            holder.account = Account()
            // Between the prior notification and its change, the old account keeps the forwarder's registration.
            XCTAssertEqual(first.observedKeyPaths, ["balance"])
        }
        XCTAssertEqual(first.observedKeyPaths, ["balance"])
        first.balance = 10
        XCTAssertTrue(replaced.get())
        XCTAssertEqual(first.observedKeyPaths.count, observancesBefore, "unregistered once the change was relayed")
        controller.unobserveAll()
    }
}
