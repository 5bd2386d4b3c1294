// A dependent key's relayed change holds its object until it ends, so the object cannot deinitialize in the middle of
// the change and take the change (and the registrations it holds) with it from wherever that deinit runs.
import Foundation
@testable import GuardCore
import XCTest

final class RelayedChangeLifetimeTests: XCTestCase {
    /// ManualChanges.DetachedChange's doc: "It holds its object until it ends, as the caller of a setter does".
    ///
    /// `summary` depends on `account.balance`. The portfolio's last reference goes while a change of the balance is
    /// relayed to `summary`: from the handler of an observer of `balance` that hears the change before the relay does
    /// (it registered later, and change notifications go newest first), which first removes the observer of
    /// `summary`. The portfolio lives until the relayed change has ended, then goes, and nothing stays registered.
    func testAnObjectReleasedDuringARelayedChangeLivesUntilTheChangeEnds() {
        var portfolio: Portfolio? = Portfolio()
        weak let released = portfolio
        let account = Account()
        portfolio?.account = account
        let dependent = Recorder()
        let releaser = Recorder()
        var aliveInHandler: Bool?
        releaser.onNotify = { _, _, _, change in
            guard !change.isPrior, aliveInHandler == nil else { return }
            portfolio?.removeObserver(dependent, forKeyPath: "summary")
            portfolio = nil
            aliveInHandler = released != nil
        }
        assertNoMisuse {
            portfolio?.addObserver(dependent, forKeyPath: "summary", options: [.prior, .new])
            account.addObserver(releaser, forKeyPath: "balance", options: [.prior, .new])
            account.balance = 5
            account.removeObserver(releaser, forKeyPath: "balance")
        }
        XCTAssertEqual(dependent.changes.first?.isPrior, true, "the relay began no change: nothing was tried")
        XCTAssertEqual(aliveInHandler, true, "the portfolio went in the middle of the change relayed to it")
        XCTAssertNil(released, "the portfolio outlived the relayed change")
        XCTAssertEqual(account.observationCount, 0, "the relay stayed registered on the account")
    }
}
