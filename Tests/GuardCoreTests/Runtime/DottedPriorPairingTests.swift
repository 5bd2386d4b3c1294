// Dotted key paths with `.prior`: a forwarder pairs each change with the prior notification of the same change
// (per thread, innermost first), so a change of a middle object that is no longer on the chain never takes the place
// of the change an open prior notification announced.
import Foundation
import GuardCore
import XCTest

final class DottedPriorPairingTests: XCTestCase {
    /// KeyPathForwarder's doc: "only an installed forwarder relays (except the change of a prior notification it
    /// relayed while installed: every prior notification an observer gets is followed by its change ...)".
    /// The promise: "dotted key paths: notifies when `account` or `account.balance` changes" (the current account).
    ///
    /// A manual change of `balance` is under way on the first account (its prior notification was relayed) when
    /// the person's account is replaced. A later, unrelated set of the *old* account's balance (from another
    /// thread) must not reach the observer of `account.balance`: that account is no longer on the chain. The open
    /// prior's change is relayed with the value along the current chain.
    func testAChangeOfTheReplacedMiddleObjectIsNotRelayedInPlaceOfTheOpenPriorsChange() {
        let person = Person()
        let first = Account()
        first.balance = 1
        let second = Account()
        second.balance = 2
        person.account = first
        let recorder = Recorder()
        var notes: [Note] = []
        assertNoMisuse {
            person.addObserver(recorder, forKeyPath: "account.balance", options: [.prior, .new])
            first.willChangeValue(forKey: "balance")  // prior relayed, change pending
            person.account = second  // the chain now goes through `second`
            let done = DispatchSemaphore(value: 0)
            Thread {
                first.balance = 99  // an unrelated change of an object no longer on the chain
                done.signal()
            }.start()
            done.wait()
            first.didChangeValue(forKey: "balance")
            notes = recorder.notes
            person.removeObserver(recorder, forKeyPath: "account.balance")
        }
        XCTAssertFalse(
            notes.contains { $0.new == "99" },
            "a change of the replaced account reached the observer of account.balance: \(notes)")
    }

    /// The same through the guard (ObservationController): the handler must never see the old account's 99.
    func testTheGuardNeverRelaysTheReplacedMiddleObjectsChange() {
        final class Owner: @unchecked Sendable {}
        let owner = Owner()
        let controller = ObservationController(observer: owner)
        let person = Person()
        let first = Account()
        let second = Account()
        person.account = first
        let seen = PriorPairingLines()
        XCTAssertEqual(
            controller.observe(person, keyPath: "account.balance", options: [.prior, .new]) { _, _, change in
                seen.append(change.isPrior ? "prior" : "new \(change.newValue.map { "\($0)" } ?? "-")")
            }, .registered)
        assertNoMisuse {
            first.willChangeValue(forKey: "balance")
            person.account = second
            let done = DispatchSemaphore(value: 0)
            Thread {
                first.balance = 99
                done.signal()
            }.start()
            done.wait()
            first.didChangeValue(forKey: "balance")
        }
        XCTAssertFalse(seen.items.contains("new 99"), "\(seen.items)")
        controller.unobserveAll()
    }
}

final class PriorPairingLines: @unchecked Sendable {
    private let lock = NSLock()
    private var storage: [String] = []
    func append(_ line: String) { lock.withLock { storage.append(line) } }
    var items: [String] { lock.withLock { storage } }
}

final class DottedPriorRemovalTests: XCTestCase {
    /// A prior relayed through a dotted path, then unobserve, then the change: nothing reaches the handler after
    /// unobserve returned, and once the change is over nothing is left registered anywhere.
    func testUnobserveBetweenPriorAndChange() {
        final class Owner: @unchecked Sendable {}
        let baseline = RuntimeMonitor.liveObservanceCount
        let owner = Owner()
        let controller = ObservationController(observer: owner)
        let person = Person()
        let first = Account()
        person.account = first
        let seen = PriorPairingLines()
        _ = controller.observe(person, keyPath: "account.balance", options: [.prior, .new]) { _, _, change in
            seen.append(change.isPrior ? "prior" : "new")
        }
        assertNoMisuse {
            first.willChangeValue(forKey: "balance")
            XCTAssertEqual(controller.unobserve(person, keyPath: "account.balance"), .removed)
            first.didChangeValue(forKey: "balance")
        }
        XCTAssertEqual(seen.items, ["prior"])
        XCTAssertEqual(RuntimeMonitor.liveObservanceCount, baseline, "a forwarder stayed registered")
    }
}

final class DottedPriorNestedChangeTests: XCTestCase {
    /// With automatic sets on one thread: a prior handler of `account.balance` replaces the
    /// account and then sets the *old* account's balance. That set's change must not be relayed in place of the change
    /// of the open prior (`new 99` would be a value of an account no longer on the chain), and the change of the first
    /// set (balance 5) must still be delivered, since its prior was.
    func testPriorHandlerReplacesMiddleObjectThenSetsTheOldLeaf() {
        let person = Person()
        let first = Account()
        let second = Account()
        second.balance = 2
        person.account = first
        let recorder = Recorder()
        let handled = PriorPairingFlag()
        recorder.onNotify = { _, _, _, change in
            guard change.isPrior, !handled.isSet else { return }
            handled.set()
            person.account = second
            first.balance = 99
        }
        var notes: [Note] = []
        assertNoMisuse {
            person.addObserver(recorder, forKeyPath: "account.balance", options: [.prior, .new])
            first.balance = 5
            notes = recorder.notes
            person.removeObserver(recorder, forKeyPath: "account.balance")
        }
        XCTAssertFalse(notes.contains { $0.new == "99" }, "the old account's change was relayed: \(notes)")
        let priors = notes.filter(\.isPrior).count
        let changes = notes.filter { !$0.isPrior }.count
        XCTAssertEqual(priors, changes, "every prior is followed by its change: \(notes)")
    }
}

final class PriorPairingFlag: @unchecked Sendable {
    private let lock = NSLock()
    private var flag = false
    func set() { lock.withLock { flag = true } }
    var isSet: Bool { lock.withLock { flag } }
}
