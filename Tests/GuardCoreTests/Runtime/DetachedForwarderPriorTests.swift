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
        var release = 1
        var firedAtLeastOnce = false
        while true {
            let person = Person()
            let first = Account()
            let second = Account()
            person.account = first
            let recorder = Recorder()
            var releases = 0
            assertNoMisuse {
                person.addObserver(recorder, forKeyPath: "account.balance", options: [.prior, .new])
                let run = LockReleaseTrigger.run(
                    afterRelease: release, do: { person.account = second }, during: { first.balance = 5 })
                releases = run.releases
                firedAtLeastOnce = firedAtLeastOnce || run.fired
                person.removeObserver(recorder, forKeyPath: "account.balance")
            }
            var open = 0
            var unpaired = false
            for change in recorder.changes {
                if change.isPrior {
                    open += 1
                } else if open > 0 {
                    open -= 1
                } else {
                    unpaired = true
                }
            }
            let heard = recorder.changes.map { $0.isPrior ? "prior" : "change" }
            XCTAssertEqual(open, 0, "replaced after release \(release): a prior without its change in \(heard)")
            XCTAssertFalse(unpaired, "replaced after release \(release): a change without its prior in \(heard)")
            XCTAssertEqual(first.observationCount, 0, "replaced after release \(release): a forwarder stayed")
            XCTAssertEqual(second.observationCount, 0, "replaced after release \(release): a forwarder stayed")
            guard release < releases else { break }
            release += 1
        }
        XCTAssertTrue(firedAtLeastOnce, "the set released no lock: nothing was tried")
    }
}
