// A dotted key path whose middle object is replaced and put back while a change of that object is under way: the
// forwarder that relayed the change's prior notification is installed again, so the change reaches the observer once.
import Foundation
import GuardCore
import XCTest

final class ReturningForwarderTests: XCTestCase {
    private final class Owner: @unchecked Sendable {}

    /// A person whose account (balance 1) is observed as `account.balance` through the guard, a second account
    /// (balance 2), and what the handler heard (`prior`, or `new` and the new value).
    private struct Setup {
        let owner = Owner()
        let controller: ObservationController<Owner>
        let person = Person()
        let first = Account()
        let second = Account()
        let seen = PriorPairingLines()

        init(options: KeyValueObservingOptions) {
            controller = ObservationController(observer: owner)
            first.balance = 1
            second.balance = 2
            person.account = first
            let seen = seen
            XCTAssertEqual(
                controller.observe(person, keyPath: "account.balance", options: options) { _, _, change in
                    seen.append(change.isPrior ? "prior" : "new \(change.newValue.map { "\($0)" } ?? "-")")
                }, .registered)
        }

        /// Announces a change of the first account's balance and, before it ends, replaces the person's account and
        /// puts it back `swaps` times.
        func swapAccountsDuringAChangeOfTheFirstBalance(swaps: Int) {
            assertNoMisuse {
                first.willChangeValue(forKey: "balance")
                for _ in 0..<swaps {
                    person.account = second
                    person.account = first
                }
                first.didChangeValue(forKey: "balance")
            }
        }

        /// Removes the registration and checks that no forwarder stayed on either account.
        func tearDown(file: StaticString = #filePath, line: UInt = #line) {
            controller.unobserveAll()
            XCTAssertEqual(first.observationCount, 0, "a forwarder stayed on the first account", file: file, line: line)
            XCTAssertEqual(second.observationCount, 0, "a forwarder stayed on the second account", file: file, line: line)
        }
    }

    /// KeyPathForwarder.detach()'s doc: "a re-wiring that brings the chain back to its target installs it again
    /// (``resumeIfAwaitingChanges()``): each change reaches the root observance once". The oracle's rule
    /// `duplicate-delivery` checks the same in campaigns (the dotted-leaf profile re-points links while the leaf is set).
    ///
    /// The first account's balance announces a change (its prior notification reaches the guard's handler); before the
    /// change ends, the person's account is replaced and put back. Without taking the waiting forwarder back, the new
    /// forwarder on the first account joins the change under way and delivers it again: `prior, new 1` twice.
    func testPuttingTheMiddleObjectBackDuringItsChangeDeliversThatChangeOnce() {
        let setup = Setup(options: [.prior, .new])
        setup.swapAccountsDuringAChangeOfTheFirstBalance(swaps: 1)
        XCTAssertEqual(setup.seen.items, ["prior", "prior", "new 2", "prior", "new 1", "new 1"])
        setup.tearDown()
    }

    /// With `.prior`, several replacements during one open change: the prior notification and its change pair up, once.
    func testPuttingTheMiddleObjectBackRepeatedlyWithPriorPairsTheOpenChangeOnce() {
        let setup = Setup(options: [.prior, .new])
        setup.swapAccountsDuringAChangeOfTheFirstBalance(swaps: 3)
        let swaps = Array(repeating: ["prior", "new 2", "prior", "new 1"], count: 3).flatMap { $0 }
        XCTAssertEqual(setup.seen.items, ["prior"] + swaps + ["new 1"])
        setup.tearDown()
    }

    /// KeyPathForwarder's doc: a forwarder "installed again, after that prior came" relays "the prior it did not
    /// relay ... first, so the change has one". While the forwarder on the first account waits (detached, the change
    /// the main thread announced still open), another thread announces a change of the same balance: the detached
    /// forwarder does not relay its prior. The account is put back, the waiting forwarder is installed again, and the
    /// other thread's change ends: without the prior relayed first, the handler heard a change without its prior.
    func testAChangeWhosePriorCameWhileTheForwarderWaitedGetsItsPriorWhenItIsInstalledAgain() {
        let setup = Setup(options: [.prior, .new])
        let otherBegan = DispatchSemaphore(value: 0)
        let accountPutBack = DispatchSemaphore(value: 0)
        let otherEnded = DispatchSemaphore(value: 0)
        assertNoMisuse {
            setup.first.willChangeValue(forKey: "balance")
            setup.person.account = setup.second
            let first = setup.first
            Thread {
                first.willChangeValue(forKey: "balance")
                otherBegan.signal()
                accountPutBack.wait()
                first.didChangeValue(forKey: "balance")
                otherEnded.signal()
            }.start()
            XCTAssertEqual(otherBegan.wait(timeout: .now() + 60), .success)
            setup.person.account = setup.first
            accountPutBack.signal()
            XCTAssertEqual(otherEnded.wait(timeout: .now() + 60), .success)
            setup.first.didChangeValue(forKey: "balance")
        }
        XCTAssertEqual(
            setup.seen.items, ["prior", "prior", "new 2", "prior", "new 1", "prior", "new 1", "new 1"])
        setup.tearDown()
    }

    /// Without `.prior` no forwarder waits for a change: the one made when the account is put back joins the change
    /// under way and alone delivers it, once, however often the account was replaced; later changes follow the
    /// person's current account.
    func testPuttingTheMiddleObjectBackRepeatedlyWithoutPriorDeliversTheChangeOnce() {
        let setup = Setup(options: [.new])
        setup.swapAccountsDuringAChangeOfTheFirstBalance(swaps: 3)
        assertNoMisuse {
            setup.first.balance = 7
            setup.second.balance = 8
        }
        XCTAssertEqual(setup.seen.items, ["new 2", "new 1", "new 2", "new 1", "new 2", "new 1", "new 1", "new 7"])
        setup.tearDown()
    }
}
