// A dotted key path's forwarder detached (its middle object replaced) while it relays a prior notification: every
// prior notification an observer gets is followed by its change.
import Foundation
@testable import GuardCore
import XCTest

final class DetachedForwarderPriorTests: XCTestCase {
    /// KeyPathForwarder's doc: "every prior notification an observer gets is followed by its change, as in
    /// Foundation, even if a handler of it replaced the middle object".
    ///
    /// While the first account's balance is set, after every lock release in turn (where another thread can get in,
    /// ``LockReleaseTrigger``), the person's account is replaced. The observer of `account.balance` hears prior and
    /// change notifications in nested pairs (each change ends the innermost open prior), none left open, and once it
    /// leaves nothing stays registered on either account.
    func testReplacingTheMiddleObjectWhileAPriorIsRelayedLeavesNoPriorWithoutItsChange() {
        let replacements = LockReleaseTrigger.forEachRelease { release in
            let person = Person()
            let first = Account()
            let second = Account()
            person.account = first
            let recorder = Recorder()
            var outcome = (fired: false, releases: 0)
            assertNoMisuse {
                person.addObserver(recorder, forKeyPath: "account.balance", options: [.prior, .new])
                outcome = LockReleaseTrigger.run(
                    afterRelease: release, do: { person.account = second }, during: { first.balance = 5 })
                person.removeObserver(recorder, forKeyPath: "account.balance")
            }
            let heard = recorder.changes.map { $0.isPrior ? "prior" : "change" }
            var open = 0
            var changeWithoutPrior = false
            for notification in heard {
                if notification == "prior" {
                    open += 1
                } else if open > 0 {
                    open -= 1
                } else {
                    changeWithoutPrior = true
                }
            }
            XCTAssertEqual(open, 0, "replaced after release \(release): a prior without its change in \(heard)")
            XCTAssertFalse(changeWithoutPrior, "replaced after release \(release): a change without its prior in \(heard)")
            XCTAssertEqual(first.observationCount, 0, "replaced after release \(release): a forwarder stayed")
            XCTAssertEqual(second.observationCount, 0, "replaced after release \(release): a forwarder stayed")
            return outcome
        }
        XCTAssertGreaterThan(replacements, 0, "the set released no lock: nothing was tried")
    }
}
