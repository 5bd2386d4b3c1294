import Foundation
import GuardCore
import XCTest

/// `"account.balance"` and deeper: changes anywhere along the chain, re-wiring when an intermediate is replaced.
final class DottedKeyPathTests: XCTestCase {
    private func account(balance: Int, bank: Bank? = nil) -> Account {
        let account = Account()
        account.balance = balance
        account.bank = bank
        return account
    }

    private func bank(_ name: String) -> Bank {
        let bank = Bank()
        bank.name = name
        return bank
    }

    func testAChangeOfTheLastKeyNotifiesTheWholePathFromTheRoot() throws {
        let person = Person()
        let savings = account(balance: 1)
        person.account = savings
        let recorder = Recorder()
        whileObserving(person, "account.balance", with: recorder, options: [.old, .new], context: Contexts.first) {
            savings.balance = 10
        }
        XCTAssertEqual(recorder.notes, [Note("account.balance", old: shown(1), new: shown(10), context: Contexts.first)])
        assertAllFrom(person, recorder)
    }

    func testReplacingTheAccountNotifiesWithTheFullPathValues() {
        let person = Person()
        let first = account(balance: 1)
        let second = account(balance: 2)
        person.account = first
        let recorder = Recorder()
        whileObserving(person, "account.balance", with: recorder, options: [.old, .new]) {
            person.account = second
        }
        XCTAssertEqual(recorder.notes, [Note("account.balance", old: shown(1), new: shown(2))])
        assertAllFrom(person, recorder)
    }

    func testAfterReplacingTheMiddleObjectTheOldChainIsSilentAndTheNewChainIsLive() {
        let person = Person()
        let first = account(balance: 1)
        let second = account(balance: 2)
        person.account = first
        let recorder = Recorder()
        assertNoMisuse {
            person.addObserver(recorder, forKeyPath: "account.balance", options: [.old, .new])
            XCTAssertEqual(first.observationCount(forKeyPath: "balance"), 1)
            person.account = second
            XCTAssertEqual(first.observationCount, 0, "the old account is no longer watched")
            XCTAssertEqual(second.observationCount(forKeyPath: "balance"), 1)
            recorder.reset()

            first.balance = 100
            XCTAssertEqual(recorder.notes, [], "the old chain is silent")
            second.balance = 20
            XCTAssertEqual(recorder.notes, [Note("account.balance", old: shown(2), new: shown(20))])

            person.removeObserver(recorder, forKeyPath: "account.balance")
            XCTAssertEqual(second.observationCount, 0)
            second.balance = 30
        }
        XCTAssertEqual(recorder.count, 1)
    }

    func testANilIntermediateGivesANilValueAndTheChainComesAliveWhenItIsSet() {
        let person = Person()
        let savings = account(balance: 7)
        let recorder = Recorder()
        whileObserving(person, "account.balance", with: recorder, options: [.initial, .old, .new]) {
            person.account = savings
            savings.balance = 8
            person.account = nil
            savings.balance = 9
        }
        XCTAssertEqual(
            recorder.notes,
            [
                Note("account.balance", new: boxedNil),
                Note("account.balance", old: boxedNil, new: shown(7)),
                Note("account.balance", old: shown(7), new: shown(8)),
                Note("account.balance", old: shown(8), new: boxedNil),
            ])
        XCTAssertEqual(savings.observationCount, 0)
    }

    func testPriorTravelsAlongTheChain() {
        let person = Person()
        let first = account(balance: 1)
        person.account = first
        let recorder = Recorder()
        whileObserving(person, "account.balance", with: recorder, options: [.prior, .old, .new]) {
            first.balance = 5
            person.account = account(balance: 6)
        }
        XCTAssertEqual(
            recorder.notes,
            [
                Note.prior("account.balance", old: shown(1)),
                Note("account.balance", old: shown(1), new: shown(5)),
                Note.prior("account.balance", old: shown(5)),
                Note("account.balance", old: shown(5), new: shown(6)),
            ])
    }

    func testObservingTheIntermediateAndThePathTogether() {
        let person = Person()
        let first = account(balance: 1)
        let second = account(balance: 2)
        person.account = first
        let recorder = Recorder()
        assertNoMisuse {
            person.addObserver(recorder, forKeyPath: "account", options: [.new])
            person.addObserver(recorder, forKeyPath: "account.balance", options: [.new])
            person.account = second
            second.balance = 3
            person.removeObserver(recorder, forKeyPath: "account")
            person.removeObserver(recorder, forKeyPath: "account.balance")
        }
        let received = recorder.received
        // Setting `account` announces `account` first and `account.balance` after it: their changes come in reverse.
        XCTAssertEqual(received.map(\.keyPath), ["account.balance", "account", "account.balance"])
        XCTAssertTrue(received[1].change.newValue as AnyObject? === second)
        XCTAssertEqual(
            [recorder.notes[0], recorder.notes[2]],
            [Note("account.balance", new: shown(2)), Note("account.balance", new: shown(3))])
    }

    func testANonOptionalChain() {
        let person = Person()
        let wallet = person.wallet
        let recorder = Recorder()
        whileObserving(person, "wallet.balance", with: recorder, options: [.old, .new]) {
            wallet.balance = 4
            person.wallet = account(balance: 40)
            wallet.balance = 5
            person.wallet.balance = 41
        }
        XCTAssertEqual(
            recorder.notes,
            [
                Note("wallet.balance", old: shown(0), new: shown(4)),
                Note("wallet.balance", old: shown(4), new: shown(40)),
                Note("wallet.balance", old: shown(40), new: shown(41)),
            ])
    }

    func testADeeperPathFollowsEveryLevel() {
        let person = Person()
        let firstBank = bank("First")
        let savings = account(balance: 0, bank: firstBank)
        person.account = savings
        let recorder = Recorder()
        let secondBank = bank("Second")
        let thirdBank = bank("Third")
        let other = account(balance: 0, bank: thirdBank)
        assertNoMisuse {
            person.addObserver(recorder, forKeyPath: "account.bank.name", options: [.old, .new])
            firstBank.name = "First National"
            savings.bank = secondBank
            firstBank.name = "silent"
            secondBank.name = "Second Federal"
            person.account = other
            secondBank.name = "silent too"
            savings.bank = firstBank
            thirdBank.name = "Third Street"
            other.bank = nil
            person.removeObserver(recorder, forKeyPath: "account.bank.name")
            XCTAssertEqual(thirdBank.observationCount + other.observationCount + savings.observationCount, 0)
        }
        XCTAssertEqual(
            recorder.notes,
            [
                Note("account.bank.name", old: shown("First"), new: shown("First National")),
                Note("account.bank.name", old: shown("First National"), new: shown("Second")),
                Note("account.bank.name", old: shown("Second"), new: shown("Second Federal")),
                Note("account.bank.name", old: shown("Second Federal"), new: shown("Third")),
                Note("account.bank.name", old: shown("Third"), new: shown("Third Street")),
                Note("account.bank.name", old: shown("Third Street"), new: boxedNil),
            ])
        assertAllFrom(person, recorder)
    }

    func testReplacingTheAccountLetsTheOldOneGoWithoutMisuse() {
        let person = Person()
        let recorder = Recorder()
        weak var released: Account?
        assertNoMisuse {
            do {
                let first = account(balance: 1)
                released = first
                person.account = first
            }
            person.addObserver(recorder, forKeyPath: "account.balance", options: [.new])
            XCTAssertNotNil(released)
            person.account = account(balance: 2)
            XCTAssertNil(released, "the old account deinitialized with the chain's registration on it, silently")
            person.account?.balance = 3
            person.removeObserver(recorder, forKeyPath: "account.balance")
        }
        XCTAssertEqual(recorder.notes, [Note("account.balance", new: shown(2)), Note("account.balance", new: shown(3))])
    }

    func testEachObserverOfAPathHasItsOwnChain() {
        let person = Person()
        let savings = account(balance: 0)
        person.account = savings
        let first = Recorder()
        let second = Recorder()
        assertNoMisuse {
            person.addObserver(first, forKeyPath: "account.balance", options: [.new])
            person.addObserver(second, forKeyPath: "account.balance", options: [.old])
            XCTAssertEqual(savings.observationCount(forKeyPath: "balance"), 2)
            savings.balance = 1
            person.removeObserver(first, forKeyPath: "account.balance")
            XCTAssertEqual(savings.observationCount(forKeyPath: "balance"), 1)
            savings.balance = 2
            person.removeObserver(second, forKeyPath: "account.balance")
            XCTAssertEqual(savings.observationCount, 0)
        }
        XCTAssertEqual(first.notes, [Note("account.balance", new: shown(1))])
        XCTAssertEqual(second.notes, [Note("account.balance", old: shown(0)), Note("account.balance", old: shown(1))])
    }

    func testTheChainIsCountedAsLiveRegistrationsAndFullyRemoved() {
        let person = Person()
        person.account = account(balance: 0, bank: bank("B"))
        let recorder = Recorder()
        let baseline = RuntimeMonitor.liveObservanceCount
        assertNoMisuse {
            person.addObserver(recorder, forKeyPath: "account.bank.name")
            // The root registration, plus one on the account ("bank.name") and one on the bank ("name").
            XCTAssertEqual(RuntimeMonitor.liveObservanceCount - baseline, 3)
            XCTAssertEqual(person.observationCount, 1)
            person.account = nil
            XCTAssertEqual(RuntimeMonitor.liveObservanceCount - baseline, 1)
            person.account = account(balance: 0)
            XCTAssertEqual(RuntimeMonitor.liveObservanceCount - baseline, 2, "an account without a bank: one link")
            person.removeObserver(recorder, forKeyPath: "account.bank.name")
            XCTAssertEqual(RuntimeMonitor.liveObservanceCount - baseline, 0)
        }
        XCTAssertEqual(recorder.notes, [Note("account.bank.name"), Note("account.bank.name")])
    }

    func testAnObjectObservedThroughAPathMayDeinitializeWhileTheRootStillObserves() {
        let person = Person()
        let recorder = Recorder()
        let baseline = RuntimeMonitor.liveObservanceCount
        assertNoMisuse {
            person.account = account(balance: 5)
            person.addObserver(recorder, forKeyPath: "account.balance", options: [.old, .new])
            person.account = nil
            XCTAssertEqual(RuntimeMonitor.liveObservanceCount - baseline, 1)
            person.removeObserver(recorder, forKeyPath: "account.balance")
        }
        XCTAssertEqual(recorder.notes, [Note("account.balance", old: shown(5), new: boxedNil)])
        XCTAssertEqual(RuntimeMonitor.liveObservanceCount, baseline)
    }

    func testAnUnknownKeyDeeperInThePathIsReportedByTheObjectThatLacksIt() {
        let person = Person()
        let savings = account(balance: 0)
        person.account = savings
        let recorder = Recorder()
        let misuses = recordingMisuse {
            person.addObserver(recorder, forKeyPath: "account.nope")
            XCTAssertEqual(savings.observationCount, 0)
            person.removeObserver(recorder, forKeyPath: "account.nope")
        }
        XCTAssertEqual(misuses, [Expected.unknownKey(object: savings, key: "nope")])
        XCTAssertEqual(person.observationCount, 0)
    }
}
