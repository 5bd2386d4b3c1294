import Foundation
import GuardCore
import XCTest

/// Adding and removing observers: duplicates, most-recent removal, contexts, and misuse on removal.
final class RegistrationTests: XCTestCase {
    func testAddingTheSameObserverTwiceMakesTwoRegistrationsThatEachNeedTheirOwnRemove() {
        let person = Person()
        let recorder = Recorder()
        assertNoMisuse {
            person.addObserver(recorder, forKeyPath: "age", options: [.new])
            person.addObserver(recorder, forKeyPath: "age", options: [.new])
            XCTAssertEqual(person.observationCount(forKeyPath: "age"), 2)
            person.age = 1
            XCTAssertEqual(recorder.notes, [Note("age", new: shown(1)), Note("age", new: shown(1))])

            recorder.reset()
            person.removeObserver(recorder, forKeyPath: "age")
            XCTAssertEqual(person.observationCount(forKeyPath: "age"), 1)
            person.age = 2
            XCTAssertEqual(recorder.notes, [Note("age", new: shown(2))])

            recorder.reset()
            person.removeObserver(recorder, forKeyPath: "age")
            XCTAssertEqual(person.observationCount(forKeyPath: "age"), 0)
            person.age = 3
            XCTAssertEqual(recorder.notes, [])
        }
        // Two adds were matched by two removes; a third remove has nothing left to match.
        let misuses = recordingMisuse { person.removeObserver(recorder, forKeyPath: "age") }
        XCTAssertEqual(misuses, [Expected.notRegistered(observer: recorder, object: person, keyPath: "age")])
        assertAllFrom(person, recorder)
    }

    func testRemovingFromAnObjectNobodyObservesIsNotRegisteredWithFoundationsWording() throws {
        let person = Person()
        let recorder = Recorder()
        let misuses = recordingMisuse { person.removeObserver(recorder, forKeyPath: "age") }
        XCTAssertEqual(misuses, [Expected.notRegistered(observer: recorder, object: person, keyPath: "age")])
        let misuse = try XCTUnwrap(misuses.first)
        XCTAssertEqual(
            misuse.message,
            "Cannot remove an observer \(rendered(recorder)) for the key path \"age\" from \(rendered(person)) "
                + "because it is not registered as an observer.")
        XCTAssertEqual(
            misuse.terminationMessage,
            "*** Terminating app due to uncaught exception 'NSRangeException', reason: '\(misuse.message)'")
    }

    func testRemovingForAnotherKeyPathOrByAnotherObserverIsNotRegisteredAndLeavesTheRegistration() {
        let person = Person()
        let recorder = Recorder()
        let stranger = Recorder()
        let misuses = recordingMisuse {
            person.addObserver(recorder, forKeyPath: "age", options: [.new])
            person.removeObserver(recorder, forKeyPath: "name")
            person.removeObserver(stranger, forKeyPath: "age")
            XCTAssertEqual(person.observationCount(forKeyPath: "age"), 1)
            person.age = 4
            person.removeObserver(recorder, forKeyPath: "age")
        }
        XCTAssertEqual(
            misuses,
            [
                Expected.notRegistered(observer: recorder, object: person, keyPath: "name"),
                Expected.notRegistered(observer: stranger, object: person, keyPath: "age"),
            ])
        XCTAssertEqual(recorder.notes, [Note("age", new: shown(4))])
        XCTAssertEqual(stranger.count, 0)
        XCTAssertEqual(person.observationCount, 0)
    }

    func testRemovingTwiceIsNotRegisteredTheSecondTime() {
        let person = Person()
        let recorder = Recorder()
        let misuses = recordingMisuse {
            person.addObserver(recorder, forKeyPath: "name")
            person.removeObserver(recorder, forKeyPath: "name")
            person.removeObserver(recorder, forKeyPath: "name")
        }
        XCTAssertEqual(misuses, [Expected.notRegistered(observer: recorder, object: person, keyPath: "name")])
        XCTAssertEqual(RuntimeMonitor.misuseCount, 0, "recordingMisuse resets the records when it is done")
    }

    func testRemoveWithoutContextTakesTheMostRecentRegistration() {
        let person = Person()
        let recorder = Recorder()
        assertNoMisuse {
            person.addObserver(recorder, forKeyPath: "age", context: Contexts.first)
            person.addObserver(recorder, forKeyPath: "age", context: Contexts.second)
            person.addObserver(recorder, forKeyPath: "age", context: Contexts.third)

            person.removeObserver(recorder, forKeyPath: "age")
            person.age = 1
            // Newest registration first.
            XCTAssertEqual(
                recorder.notes, [Note("age", context: Contexts.second), Note("age", context: Contexts.first)])

            recorder.reset()
            person.removeObserver(recorder, forKeyPath: "age")
            person.age = 2
            XCTAssertEqual(recorder.notes, [Note("age", context: Contexts.first)])

            person.removeObserver(recorder, forKeyPath: "age")
        }
        XCTAssertEqual(person.observationCount, 0)
    }

    func testRemoveWithoutContextTakesTheMostRecentRegistrationWhateverItsOptions() {
        let person = Person()
        let recorder = Recorder()
        assertNoMisuse {
            person.addObserver(recorder, forKeyPath: "age", options: [.old])
            person.addObserver(recorder, forKeyPath: "age", options: [.new])
            person.removeObserver(recorder, forKeyPath: "age")
            person.age = 9
            person.removeObserver(recorder, forKeyPath: "age")
        }
        XCTAssertEqual(recorder.notes, [Note("age", old: shown(0))])
    }

    func testRemoveWithContextPicksTheMatchingRegistration() {
        let person = Person()
        let recorder = Recorder()
        let misuses = recordingMisuse {
            person.addObserver(recorder, forKeyPath: "age", context: Contexts.first)
            person.addObserver(recorder, forKeyPath: "age", context: Contexts.second)
            person.addObserver(recorder, forKeyPath: "age", context: Contexts.third)

            person.removeObserver(recorder, forKeyPath: "age", context: Contexts.second)
            person.age = 1
            XCTAssertEqual(
                recorder.notes, [Note("age", context: Contexts.third), Note("age", context: Contexts.first)])

            recorder.reset()
            person.removeObserver(recorder, forKeyPath: "age", context: Contexts.first)
            person.age = 2
            XCTAssertEqual(recorder.notes, [Note("age", context: Contexts.third)])

            // No registration with the first context is left: misuse, and the third context stays registered.
            recorder.reset()
            person.removeObserver(recorder, forKeyPath: "age", context: Contexts.first)
            person.age = 3
            XCTAssertEqual(recorder.notes, [Note("age", context: Contexts.third)])

            person.removeObserver(recorder, forKeyPath: "age", context: Contexts.third)
        }
        XCTAssertEqual(misuses, [Expected.notRegistered(observer: recorder, object: person, keyPath: "age")])
        XCTAssertEqual(person.observationCount, 0)
    }

    func testRemoveWithContextTakesTheMostRecentOfSeveralWithThatContext() {
        let person = Person()
        let recorder = Recorder()
        assertNoMisuse {
            person.addObserver(recorder, forKeyPath: "age", options: [.old], context: Contexts.first)
            person.addObserver(recorder, forKeyPath: "age", options: [.new], context: Contexts.second)
            person.addObserver(recorder, forKeyPath: "age", options: [.new], context: Contexts.first)
            person.removeObserver(recorder, forKeyPath: "age", context: Contexts.first)
            person.age = 5
            person.removeObserver(recorder, forKeyPath: "age", context: Contexts.first)
            person.removeObserver(recorder, forKeyPath: "age", context: Contexts.second)
        }
        XCTAssertEqual(
            recorder.notes,
            [Note("age", new: shown(5), context: Contexts.second), Note("age", old: shown(0), context: Contexts.first)])
    }

    func testRemoveWithANilContextMatchesOnlyRegistrationsWithoutContext() {
        let person = Person()
        let recorder = Recorder()
        let misuses = recordingMisuse {
            person.addObserver(recorder, forKeyPath: "age", context: Contexts.first)
            person.removeObserver(recorder, forKeyPath: "age", context: nil)
            XCTAssertEqual(person.observationCount(forKeyPath: "age"), 1)
            person.addObserver(recorder, forKeyPath: "age")
            person.addObserver(recorder, forKeyPath: "age", context: Contexts.second)
            person.removeObserver(recorder, forKeyPath: "age", context: nil)
            person.age = 1
            person.removeObserver(recorder, forKeyPath: "age")
            person.removeObserver(recorder, forKeyPath: "age")
        }
        XCTAssertEqual(misuses, [Expected.notRegistered(observer: recorder, object: person, keyPath: "age")])
        XCTAssertEqual(
            recorder.notes, [Note("age", context: Contexts.second), Note("age", context: Contexts.first)])
        XCTAssertEqual(person.observationCount, 0)
    }

    /// Change notifications go newest registration first (Foundation's order).
    func testObserversAreNotifiedNewestFirstWithTheirOwnOptionsAndContexts() {
        let person = Person()
        let first = Recorder()
        let second = Recorder()
        let order = TestBox<[String]>([])
        first.onNotify = { _, _, _, _ in order.mutate { $0.append("first") } }
        second.onNotify = { _, _, _, _ in order.mutate { $0.append("second") } }
        assertNoMisuse {
            person.addObserver(second, forKeyPath: "name", options: [.old], context: Contexts.second)
            person.addObserver(first, forKeyPath: "name", options: [.new], context: Contexts.first)
            person.name = "Ann"
            person.removeObserver(first, forKeyPath: "name")
            person.name = "Bo"
            person.removeObserver(second, forKeyPath: "name")
        }
        XCTAssertEqual(order.get(), ["first", "second", "second"])
        XCTAssertEqual(first.notes, [Note("name", new: shown("Ann"), context: Contexts.first)])
        XCTAssertEqual(
            second.notes,
            [Note("name", old: shown(""), context: Contexts.second), Note("name", old: shown("Ann"), context: Contexts.second)])
        assertAllFrom(person, first)
        assertAllFrom(person, second)
    }

    func testOneObserverOnSeveralObjectsHearsEachFromItsOwnObject() {
        let ann = Person()
        let bo = Person()
        let recorder = Recorder()
        assertNoMisuse {
            ann.addObserver(recorder, forKeyPath: "age", options: [.new])
            bo.addObserver(recorder, forKeyPath: "age", options: [.new])
            bo.age = 2
            ann.age = 1
            ann.removeObserver(recorder, forKeyPath: "age")
            bo.age = 3
            bo.removeObserver(recorder, forKeyPath: "age")
        }
        XCTAssertEqual(recorder.received.map(\.object), [ObjectIdentifier(bo), ObjectIdentifier(ann), ObjectIdentifier(bo)])
        XCTAssertEqual(recorder.notes, [Note("age", new: shown(2)), Note("age", new: shown(1)), Note("age", new: shown(3))])
    }

    // MARK: Registering and removing from inside a callback

    func testAnObserverMayRemoveItselfInsideItsCallback() {
        let person = Person()
        let recorder = Recorder()
        recorder.onNotify = { recorder, keyPath, object, _ in
            object.removeObserver(recorder, forKeyPath: keyPath)
        }
        assertNoMisuse {
            person.addObserver(recorder, forKeyPath: "age", options: [.new])
            person.age = 1
            person.age = 2
        }
        XCTAssertEqual(recorder.notes, [Note("age", new: shown(1))])
        XCTAssertEqual(person.observationCount, 0)
    }

    func testARegistrationRemovedDuringADeliveryGetsNothingMore() {
        let person = Person()
        let remover = Recorder()
        let victim = Recorder()
        remover.onNotify = { _, _, object, _ in
            object.removeObserver(victim, forKeyPath: "age")
        }
        assertNoMisuse {
            person.addObserver(victim, forKeyPath: "age", options: [.new])
            person.addObserver(remover, forKeyPath: "age", options: [.new])
            // The change's snapshot holds both registrations, but the victim's is gone before its turn comes (the
            // newer remover hears the change first).
            person.age = 1
            person.removeObserver(remover, forKeyPath: "age")
        }
        XCTAssertEqual(remover.notes, [Note("age", new: shown(1))])
        XCTAssertEqual(victim.notes, [])
        XCTAssertEqual(person.observationCount, 0)
    }

    func testAnObserverAddedDuringADeliveryHearsOnlyLaterChanges() {
        let person = Person()
        let adder = Recorder()
        let latecomer = Recorder()
        adder.onNotify = { adder, _, object, _ in
            object.addObserver(latecomer, forKeyPath: "age", options: [.new])
            object.removeObserver(adder, forKeyPath: "age")
        }
        assertNoMisuse {
            person.addObserver(adder, forKeyPath: "age", options: [.new])
            person.age = 1
            person.age = 2
            person.removeObserver(latecomer, forKeyPath: "age")
        }
        XCTAssertEqual(adder.notes, [Note("age", new: shown(1))])
        XCTAssertEqual(latecomer.notes, [Note("age", new: shown(2))])
    }

    func testAnObserverMayChangeAnotherKeyInsideItsCallback() {
        let person = Person()
        let recorder = Recorder()
        recorder.onNotify = { _, keyPath, object, _ in
            if keyPath == "age", let person = object as? Person { person.name = "age is \(person.age)" }
        }
        assertNoMisuse {
            person.addObserver(recorder, forKeyPath: "age", options: [.new])
            person.addObserver(recorder, forKeyPath: "name", options: [.new])
            person.age = 30
            person.removeObserver(recorder, forKeyPath: "age")
            person.removeObserver(recorder, forKeyPath: "name")
        }
        XCTAssertEqual(recorder.notes, [Note("age", new: shown(30)), Note("name", new: shown("age is 30"))])
    }
}
