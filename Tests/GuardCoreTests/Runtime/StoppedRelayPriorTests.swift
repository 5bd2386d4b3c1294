// A dependent key's relay stopped while a change it began is open: every prior notification an observer gets is
// followed by its change, also for an observer that registered while the relay was being stopped.
import Foundation
@testable import GuardCore
import XCTest

final class StoppedRelayPriorTests: XCTestCase {
    /// DependencyRelay's doc: "Every prior notification an observer gets is followed by its change: a relay stopped
    /// while a change it began is open stays registered until the last such change has ended, then unregisters".
    ///
    /// `summary` depends on `account.balance`. While `balance` is set, after every lock release in turn (where another
    /// thread can get in, ``LockReleaseTrigger``), the last observer of `summary` leaves (which stops the relay) and
    /// a new one arrives (which starts another). Whatever the new observer hears of that set comes in prior /
    /// change pairs, and once it leaves nothing stays registered.
    func testAnObserverArrivingWhileTheRelayStopsGetsTheChangeOfEveryPriorItGets() {
        let switches = LockReleaseTrigger.forEachRelease { release in
            let portfolio = Portfolio()
            let account = Account()
            portfolio.account = account
            let leaving = Recorder()
            let arriving = Recorder()
            var outcome = (fired: false, releases: 0)
            assertNoMisuse {
                portfolio.addObserver(leaving, forKeyPath: "summary", options: [.prior])
                outcome = LockReleaseTrigger.run(
                    afterRelease: release,
                    do: {
                        portfolio.removeObserver(leaving, forKeyPath: "summary")
                        portfolio.addObserver(arriving, forKeyPath: "summary", options: [.prior, .new])
                    },
                    during: { account.balance = 5 })
                portfolio.removeObserver(outcome.fired ? arriving : leaving, forKeyPath: "summary")
            }
            let heard = arriving.changes.map { $0.isPrior ? "prior" : "change" }
            XCTAssertTrue(
                heard == [] || heard == ["prior", "change"] || heard == ["change"],
                "switch after release \(release): the arriving observer heard \(heard)")
            XCTAssertEqual(account.observationCount, 0, "switch after release \(release): the relay stayed registered")
            XCTAssertEqual(portfolio.observationCount, 0, "switch after release \(release)")
            return outcome
        }
        XCTAssertGreaterThan(switches, 0, "the set released no lock: nothing was tried")
    }

    /// A relay stopped while a change it began is open, with another change of its key path nested in that one on
    /// the same thread: the relay pairs each change with its own prior notification, so it stays registered until
    /// the outer change ends, not just until the nested one does.
    func testAStoppedRelayWaitsForItsOwnChangeNotANestedOne() {
        let portfolio = Portfolio()
        let account = Account()
        account.balance = 1
        portfolio.account = account
        let first = Recorder()  // registered before the relay's forwarder
        let leaving = Recorder()
        // Registered after the relay's forwarder: hears account.balance's prior after it, and its change before it
        // (changes go newest registration first).
        let last = Recorder()
        var relayRegistrationsAtOuterChange: [Int] = []
        assertNoMisuse {
            account.addObserver(first, forKeyPath: "balance", options: [.prior, .new])
            portfolio.addObserver(leaving, forKeyPath: "summary", options: [.prior])
            account.addObserver(last, forKeyPath: "balance", options: [.prior, .new])
            var nested = false
            last.onNotify = { _, _, _, change in
                if !change.isPrior, (change.newValue as? Int) == 3 {
                    relayRegistrationsAtOuterChange.append(portfolio.observationCount(forKeyPath: "account.balance"))
                }
                guard change.isPrior, !nested else { return }
                nested = true
                portfolio.removeObserver(leaving, forKeyPath: "summary")  // stops the relay; its change is open
                account.balance = 2  // a change of account.balance nested in the open one
            }
            account.balance = 3
            account.removeObserver(first, forKeyPath: "balance")
            account.removeObserver(last, forKeyPath: "balance")
        }
        XCTAssertEqual(relayRegistrationsAtOuterChange, [1], "the relay left before the change it began ended")
        XCTAssertEqual(portfolio.observationCount, 0, "the relay stayed registered after its change ended")
        XCTAssertEqual(account.observationCount, 0)
    }
}
