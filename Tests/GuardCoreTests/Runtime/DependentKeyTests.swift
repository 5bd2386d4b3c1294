import Foundation
import GuardCore
import XCTest

/// `keyPathsForValuesAffectingValue(forKey:)`: `fullName` ← `firstName`, `lastName`; `greeting` ← `fullName`.
final class DependentKeyTests: XCTestCase {
    func testFullNameIsNotifiedWhenFirstNameOrLastNameChanges() {
        let person = Person()
        let recorder = Recorder()
        assertNoMisuse {
            person.addObserver(recorder, forKeyPath: "fullName", options: [.old, .new])
            person.firstName = "Ann"
            person.lastName = "Lee"
            person.removeObserver(recorder, forKeyPath: "fullName")
            person.firstName = "Bo"
        }
        XCTAssertEqual(
            recorder.notes,
            [
                Note("fullName", old: shown(" "), new: shown("Ann ")),
                Note("fullName", old: shown("Ann "), new: shown("Ann Lee")),
            ])
        assertAllFrom(person, recorder)
    }

    func testUnrelatedChangesDoNotNotifyADependentKey() {
        let person = Person()
        let recorder = Recorder()
        whileObserving(person, "fullName", with: recorder) {
            person.age = 3
            person.name = "not a part of fullName"
        }
        XCTAssertEqual(recorder.notes, [])
    }

    func testGreetingDependsOnFirstNameTransitivelyThroughFullName() {
        let person = Person()
        let recorder = Recorder()
        whileObserving(person, "greeting", with: recorder, options: [.old, .new]) {
            person.firstName = "Ann"
            person.lastName = "Lee"
        }
        XCTAssertEqual(
            recorder.notes,
            [
                Note("greeting", old: shown("Hello,  "), new: shown("Hello, Ann ")),
                Note("greeting", old: shown("Hello, Ann "), new: shown("Hello, Ann Lee")),
            ])
    }

    func testPriorOfADependentKeyCarriesItsOldValue() {
        let person = Person()
        person.lastName = "Lee"
        let recorder = Recorder()
        whileObserving(person, "fullName", with: recorder, options: [.prior, .old, .new]) {
            person.firstName = "Ann"
        }
        XCTAssertEqual(
            recorder.notes,
            [Note.prior("fullName", old: shown(" Lee")), Note("fullName", old: shown(" Lee"), new: shown("Ann Lee"))])
    }

    /// Each key path hears about the change once; the changed key's priors come first, so (Foundation's order: change
    /// notifications reverse the priors) its change notification comes last.
    func testEachKeyPathIsNotifiedOnceAndTheChangedKeyLast() {
        let person = Person()
        let recorder = Recorder()
        assertNoMisuse {
            person.addObserver(recorder, forKeyPath: "fullName", options: [.new])
            person.addObserver(recorder, forKeyPath: "greeting", options: [.new])
            person.addObserver(recorder, forKeyPath: "firstName", options: [.new])
            person.firstName = "Ann"
            person.removeObserver(recorder, forKeyPath: "fullName")
            person.removeObserver(recorder, forKeyPath: "greeting")
            person.removeObserver(recorder, forKeyPath: "firstName")
        }
        XCTAssertEqual(
            recorder.notes,
            [
                Note("greeting", new: shown("Hello, Ann ")),
                Note("fullName", new: shown("Ann ")),
                Note("firstName", new: shown("Ann")),
            ])
    }

    /// All priors come before any change, and the changes come in the priors' reverse order (Foundation pops its
    /// pending notifications), so the pairs nest.
    func testPriorsOfTheKeyAndItsDependentsAllComeBeforeAnyChange() {
        let person = Person()
        let recorder = Recorder()
        assertNoMisuse {
            person.addObserver(recorder, forKeyPath: "lastName", options: [.prior, .new])
            person.addObserver(recorder, forKeyPath: "fullName", options: [.prior, .new])
            person.lastName = "Lee"
            person.removeObserver(recorder, forKeyPath: "lastName")
            person.removeObserver(recorder, forKeyPath: "fullName")
        }
        XCTAssertEqual(
            recorder.notes,
            [
                Note.prior("lastName"), Note.prior("fullName"),
                Note("fullName", new: shown(" Lee")), Note("lastName", new: shown("Lee")),
            ])
    }

    func testRemovingTheDependentObservationStopsItButNotTheOthers() {
        let person = Person()
        let recorder = Recorder()
        assertNoMisuse {
            person.addObserver(recorder, forKeyPath: "fullName")
            person.addObserver(recorder, forKeyPath: "firstName")
            person.removeObserver(recorder, forKeyPath: "fullName")
            person.firstName = "Ann"
            person.removeObserver(recorder, forKeyPath: "firstName")
            person.firstName = "Bo"
        }
        XCTAssertEqual(recorder.notes, [Note("firstName")])
        XCTAssertEqual(person.observationCount, 0)
    }

    func testManualAnnouncementOfAKeyAlsoAnnouncesItsDependents() {
        let person = Person()
        let recorder = Recorder()
        whileObserving(person, "fullName", with: recorder, options: [.prior, .old, .new]) {
            person.willChangeValue(forKey: "lastName")
            person.didChangeValue(forKey: "lastName")
        }
        XCTAssertEqual(recorder.notes, [Note.prior("fullName", old: shown(" ")), Note("fullName", old: shown(" "), new: shown(" "))])
    }

    func testSeveralObserversOfADependentKeyOnSeveralObjects() {
        let ann = Person()
        let bo = Person()
        let first = Recorder()
        let second = Recorder()
        assertNoMisuse {
            ann.addObserver(first, forKeyPath: "fullName", options: [.new])
            bo.addObserver(first, forKeyPath: "fullName", options: [.new])
            bo.addObserver(second, forKeyPath: "greeting", options: [.new])
            ann.firstName = "Ann"
            bo.firstName = "Bo"
            ann.removeObserver(first, forKeyPath: "fullName")
            bo.removeObserver(first, forKeyPath: "fullName")
            bo.removeObserver(second, forKeyPath: "greeting")
        }
        XCTAssertEqual(first.notes, [Note("fullName", new: shown("Ann ")), Note("fullName", new: shown("Bo "))])
        XCTAssertEqual(first.received.map(\.object), [ObjectIdentifier(ann), ObjectIdentifier(bo)])
        XCTAssertEqual(second.notes, [Note("greeting", new: shown("Hello, Bo "))])
    }
}
