import Foundation
import GuardCore
import XCTest

/// `.new`, `.old`, `.initial` and `.prior`, alone and together.
final class OptionsTests: XCTestCase {
    func testOptionsHaveFoundationsRawValues() {
        XCTAssertEqual(KeyValueObservingOptions.new.rawValue, 0x01)
        XCTAssertEqual(KeyValueObservingOptions.old.rawValue, 0x02)
        XCTAssertEqual(KeyValueObservingOptions.initial.rawValue, 0x04)
        XCTAssertEqual(KeyValueObservingOptions.prior.rawValue, 0x08)
        XCTAssertEqual(KeyValueObservingOptions([.new, .old]).description, "<New: YES, Old: YES, Prior: NO>")
        XCTAssertEqual(
            KeyValueObservingOptions([.prior, .initial]).description, "<New: NO, Old: NO, Prior: YES, Initial: YES>")
    }

    func testWithoutOptionsAChangeCarriesNeitherOldNorNew() {
        let person = Person()
        let recorder = Recorder()
        whileObserving(person, "age", with: recorder) {
            person.age = 5
        }
        XCTAssertEqual(recorder.notes, [Note("age")])
    }

    func testOldAndNewCarryTheValuesAroundTheChangeAndNothingIsSentAfterRemoval() throws {
        let person = Person()
        let recorder = Recorder()
        assertNoMisuse {
            person.addObserver(recorder, forKeyPath: "age", options: [.old, .new])
            person.age = 5
            person.age = 8
            person.removeObserver(recorder, forKeyPath: "age")
            person.age = 6
        }
        XCTAssertEqual(recorder.notes, [Note("age", old: shown(0), new: shown(5)), Note("age", old: shown(5), new: shown(8))])
        let change = try XCTUnwrap(recorder.changes.first)
        XCTAssertEqual(change.oldValue(as: Int.self), 0)
        XCTAssertEqual(change.newValue(as: Int.self), 5)
        XCTAssertNil(change.newValue(as: String.self), "a value of another type casts to nil")
        XCTAssertEqual(change.keyPath, "age")
        XCTAssertNil(change.indexes)
        XCTAssertFalse(change.isPrior)
        assertAllFrom(person, recorder)
    }

    func testOnlyTheRequestedValueIsSent() {
        let person = Person()
        let oldOnly = Recorder()
        let newOnly = Recorder()
        assertNoMisuse {
            person.addObserver(oldOnly, forKeyPath: "name", options: [.old])
            person.addObserver(newOnly, forKeyPath: "name", options: [.new])
            person.name = "Ann"
            person.removeObserver(oldOnly, forKeyPath: "name")
            person.removeObserver(newOnly, forKeyPath: "name")
        }
        XCTAssertEqual(oldOnly.notes, [Note("name", old: shown(""))])
        XCTAssertEqual(newOnly.notes, [Note("name", new: shown("Ann"))])
    }

    func testEverySetNotifiesEvenWhenTheValueIsUnchanged() {
        let person = Person()
        let recorder = Recorder()
        whileObserving(person, "age", with: recorder, options: [.old, .new]) {
            person.age = 0
            person.age = 0
        }
        XCTAssertEqual(recorder.notes, [Note("age", old: shown(0), new: shown(0)), Note("age", old: shown(0), new: shown(0))])
    }

    func testNilValuesArriveAsPresentButNil() throws {
        let person = Person()
        let recorder = Recorder()
        whileObserving(person, "nickname", with: recorder, options: [.old, .new]) {
            person.nickname = "Nick"
            person.nickname = nil
        }
        XCTAssertEqual(
            recorder.notes,
            [Note("nickname", old: boxedNil, new: shown("Nick")), Note("nickname", old: shown("Nick"), new: boxedNil)])
        let first = try XCTUnwrap(recorder.changes.first)
        XCTAssertNotNil(first.oldValue, "a nil value is present, not absent")
        XCTAssertNil(first.oldValue(as: String.self))
        XCTAssertEqual(first.newValue(as: String.self), "Nick")
        XCTAssertTrue(first.newValue.map { type(of: $0) == String.self } ?? false, "the new value is unwrapped")
    }

    // MARK: .initial

    func testInitialFiresInsideAddObserverBeforeItReturnsOnTheCallingThreadWithNewAndNeverOld() throws {
        let person = Person()
        person.age = 41
        let recorder = Recorder()
        let addReturned = TestBox(false)
        let seen = TestBox<(returned: Bool, registrations: Int)?>(nil)
        recorder.onNotify = { _, _, object, _ in
            seen.set((addReturned.get(), object.observationCount(forKeyPath: "age")))
        }
        assertNoMisuse {
            person.addObserver(recorder, forKeyPath: "age", options: [.initial, .old, .new], context: Contexts.first)
            addReturned.set(true)
            XCTAssertEqual(recorder.count, 1, "delivered before addObserver returned")
            person.removeObserver(recorder, forKeyPath: "age")
        }
        let during = try XCTUnwrap(seen.get())
        XCTAssertFalse(during.returned, "the initial notification came from inside addObserver")
        XCTAssertEqual(during.registrations, 0, "as in Foundation, it comes before the registration exists")
        XCTAssertEqual(recorder.notes, [Note("age", new: shown(41), context: Contexts.first)])
        let received = try XCTUnwrap(recorder.received.first)
        XCTAssertTrue(received.thread === Thread.current)
        XCTAssertNil(received.change.oldValue, "an initial notification never has an old value")
        assertAllFrom(person, recorder)
    }

    func testInitialWithoutNewCarriesNoValue() {
        let person = Person()
        let recorder = Recorder()
        assertNoMisuse {
            person.addObserver(recorder, forKeyPath: "name", options: [.initial, .old])
            person.removeObserver(recorder, forKeyPath: "name")
        }
        XCTAssertEqual(recorder.notes, [Note("name")])
    }

    func testInitialOfANilValueIsPresentButNil() {
        let person = Person()
        let recorder = Recorder()
        assertNoMisuse {
            person.addObserver(recorder, forKeyPath: "nickname", options: [.initial, .new])
            person.removeObserver(recorder, forKeyPath: "nickname")
        }
        XCTAssertEqual(recorder.notes, [Note("nickname", new: boxedNil)])
    }

    func testInitialIsDeliveredOnTheThreadThatAdds() throws {
        let person = Person()
        let recorder = Recorder()
        let (added, thread) = onAnotherThread { () -> [KVOMisuse] in
            recordingMisuse { person.addObserver(recorder, forKeyPath: "age", options: [.initial, .new]) }
        }
        XCTAssertEqual(added, [])
        XCTAssertFalse(thread === Thread.current)
        let received = try XCTUnwrap(recorder.received.first)
        XCTAssertTrue(received.thread === thread)
        XCTAssertEqual(recorder.notes, [Note("age", new: shown(0))])
        assertNoMisuse { person.removeObserver(recorder, forKeyPath: "age") }
    }

    func testEachInitialRegistrationNotifiesOnlyItsOwnObserver() {
        let person = Person()
        let early = Recorder()
        let late = Recorder()
        assertNoMisuse {
            person.addObserver(early, forKeyPath: "age", options: [.new])
            person.addObserver(late, forKeyPath: "age", options: [.initial, .new])
            person.removeObserver(early, forKeyPath: "age")
            person.removeObserver(late, forKeyPath: "age")
        }
        XCTAssertEqual(early.notes, [])
        XCTAssertEqual(late.notes, [Note("age", new: shown(0))])
    }

    func testRemovingTheObserverInsideItsInitialNotificationIsNotRegisteredAndTheRegistrationIsStillAdded() {
        let person = Person()
        let recorder = Recorder()
        recorder.onNotify = { recorder, keyPath, object, change in
            if change.newValue(as: Int.self) == 0 { object.removeObserver(recorder, forKeyPath: keyPath) }
        }
        let misuses = recordingMisuse {
            person.addObserver(recorder, forKeyPath: "age", options: [.initial, .new])
            XCTAssertEqual(person.observationCount(forKeyPath: "age"), 1)
            person.age = 7
            person.removeObserver(recorder, forKeyPath: "age")
        }
        XCTAssertEqual(misuses, [Expected.notRegistered(observer: recorder, object: person, keyPath: "age")])
        XCTAssertEqual(recorder.notes, [Note("age", new: shown(0)), Note("age", new: shown(7))])
        XCTAssertEqual(person.observationCount, 0)
    }

    // MARK: .prior

    func testPriorComesFirstWithIsPriorAndNoNew() throws {
        let person = Person()
        let recorder = Recorder()
        whileObserving(person, "age", with: recorder, options: [.prior, .new]) {
            person.age = 3
        }
        XCTAssertEqual(recorder.notes, [Note.prior("age"), Note("age", new: shown(3))])
        let prior = try XCTUnwrap(recorder.changes.first)
        XCTAssertTrue(prior.isPrior)
        XCTAssertNil(prior.newValue)
        XCTAssertEqual(prior.kind, .setting)
    }

    func testPriorCarriesOldWhenAsked() {
        let person = Person()
        let recorder = Recorder()
        whileObserving(person, "name", with: recorder, options: [.prior, .old]) {
            person.name = "Ann"
        }
        XCTAssertEqual(recorder.notes, [Note.prior("name", old: shown("")), Note("name", old: shown(""))])
    }

    func testPriorIsSentBeforeTheValueIsStored() {
        let person = Person()
        let recorder = Recorder()
        let valuesSeen = TestBox<[Int]>([])
        recorder.onNotify = { _, _, object, _ in
            valuesSeen.mutate { $0.append((object as! Person).age) }
        }
        whileObserving(person, "age", with: recorder, options: [.prior]) {
            person.age = 12
        }
        XCTAssertEqual(valuesSeen.get(), [0, 12], "the prior sees the old value stored, the change the new one")
        XCTAssertEqual(recorder.notes, [Note.prior("age"), Note("age")])
    }

    func testPriorGoesOnlyToObserversThatAskedForIt() {
        let person = Person()
        let withPrior = Recorder()
        let without = Recorder()
        let order = TestBox<[String]>([])
        withPrior.onNotify = { _, _, _, change in order.mutate { $0.append(change.isPrior ? "prior" : "with") } }
        without.onNotify = { _, _, _, _ in order.mutate { $0.append("without") } }
        assertNoMisuse {
            person.addObserver(without, forKeyPath: "age")
            person.addObserver(withPrior, forKeyPath: "age", options: [.prior])
            person.age = 1
            person.removeObserver(without, forKeyPath: "age")
            person.removeObserver(withPrior, forKeyPath: "age")
        }
        // Changes go newest registration first.
        XCTAssertEqual(order.get(), ["prior", "with", "without"])
    }

    // MARK: All four

    func testInitialPriorOldAndNewTogetherGiveTheExactSequence() {
        let person = Person()
        person.age = 10
        let recorder = Recorder()
        assertNoMisuse {
            person.addObserver(
                recorder, forKeyPath: "age", options: [.initial, .prior, .old, .new], context: Contexts.second)
            person.age = 11
            person.age = 12
            person.removeObserver(recorder, forKeyPath: "age")
            person.age = 13
        }
        XCTAssertEqual(
            recorder.notes,
            [
                Note("age", new: shown(10), context: Contexts.second),
                Note.prior("age", old: shown(10), context: Contexts.second),
                Note("age", old: shown(10), new: shown(11), context: Contexts.second),
                Note.prior("age", old: shown(11), context: Contexts.second),
                Note("age", old: shown(11), new: shown(12), context: Contexts.second),
            ])
        assertAllFrom(person, recorder)
    }
}
