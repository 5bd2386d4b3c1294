import Foundation
import GuardCore
import XCTest

/// `setValue(_:forKey:)` and `setValue(_:forKeyPath:)`, Foundation's key-value coding setters: a set is announced as
/// the property's own setter announces it (Key-Value Observing Programming Guide, "Automatic Change Notification":
/// changes made through `setValue:forKey:` notify observers), an unknown key goes to `setValue(_:forUndefinedKey:)`,
/// nil for a scalar to `setNilValueForKey(_:)` (Key-Value Coding Programming Guide, "Representing Non-Object Values"
/// and "Handling Non-Object Values"), and both raise by default.
final class KeyValueSettingTests: XCTestCase {
    /// What an observer of `age` with every option hears, for a set made by `set`.
    private func notesOfASetOfAge(_ set: (SettableModel) -> Void) -> [Note] {
        let model = SettableModel()
        let recorder = Recorder()
        model.addObserver(recorder, forKeyPath: "age", options: [.old, .new, .prior])
        set(model)
        model.removeObserver(recorder, forKeyPath: "age")
        XCTAssertEqual(model.age, 5)
        return recorder.notes
    }

    func testASetOfAnObservedPropertyIsAnnouncedExactlyAsItsSetterAnnouncesIt() {
        var notes: [Note] = []
        assertNoMisuse { notes = notesOfASetOfAge { $0.setValue(5, forKey: "age") } }
        XCTAssertEqual(notes, [Note.prior("age", old: "0"), Note("age", old: "0", new: "5")])
        XCTAssertEqual(notes, notesOfASetOfAge { $0.age = 5 })
    }

    func testDependentKeysAndTheClassesOptOutAreHonoured() {
        let model = SettableModel()
        let recorder = Recorder()
        assertNoMisuse {
            model.addObserver(recorder, forKeyPath: "fullName", options: [.new])
            model.addObserver(recorder, forKeyPath: "quiet", options: [.new])
            model.setValue("Ann", forKey: "firstName")
            model.setValue(3, forKey: "quiet")
        }
        XCTAssertEqual(recorder.notes, [Note("fullName", new: "\"Ann!\"")])
        XCTAssertEqual(model.quiet, 3, "stored, but automaticallyNotifiesObservers(forKey:) said no")
        model.removeObserver(recorder, forKeyPath: "fullName")
        model.removeObserver(recorder, forKeyPath: "quiet")
    }

    /// A plain stored property's setter announces nothing, but a set through key-value coding is announced, as
    /// Foundation's key-value coding announces the sets it makes (even straight into an instance variable).
    func testASetOfAPlainStoredPropertyIsAnnounced() {
        let model = SettableModel()
        let recorder = Recorder()
        assertNoMisuse {
            model.addObserver(recorder, forKeyPath: "plain", options: [.old, .new])
            model.setValue("changed", forKey: "plain")
        }
        XCTAssertEqual(model.plain, "changed")
        XCTAssertEqual(recorder.notes, [Note("plain", old: "\"plain\"", new: "\"changed\"")])
        model.removeObserver(recorder, forKeyPath: "plain")
    }

    func testOptionalsNilAndNumbersOfAnotherTypeAreStored() {
        let model = SettableModel()
        assertNoMisuse {
            model.setValue("Nick", forKey: "nickname")
            XCTAssertEqual(model.nickname, "Nick")
            model.setValue(nil, forKey: "nickname")
            XCTAssertNil(model.nickname)
            model.setValue(Optional<String>.none, forKey: "nickname")
            XCTAssertNil(model.nickname)
            model.setValue(3, forKey: "price")
            XCTAssertEqual(model.price, 3.0)
            model.setValue(2.0, forKey: "age")
            XCTAssertEqual(model.age, 2)
            model.setValue(NSNumber(value: 7), forKey: "age")
            XCTAssertEqual(model.age, 7)
            model.setValue(Int8(9), forKey: "age")
            XCTAssertEqual(model.age, 9)
        }
    }

    /// Foundation: `setValue:forUndefinedKey:` raises `NSUnknownKeyException` with this wording.
    func testAnUnknownKeyIsMisuseWithFoundationsWording() throws {
        let model = SettableModel()
        let misuses = recordingMisuse { model.setValue(1, forKey: "nope") }
        let misuse = try XCTUnwrap(misuses.first)
        XCTAssertEqual(misuses.count, 1)
        XCTAssertEqual(misuse.kind, .unknownKey)
        XCTAssertEqual(misuse.exceptionName, "NSUnknownKeyException")
        XCTAssertEqual(
            misuse.message,
            "[\(rendered(model)) setValue:forUndefinedKey:]: this class is not key value coding-compliant for the key "
                + "nope.")
    }

    /// A `let` and a computed key are not settable by default: `setValue(_:forUndefinedKey:)`.
    func testConstantsAndComputedKeysAreNotSettable() {
        let model = SettableModel()
        let misuses = recordingMisuse {
            model.setValue(8, forKey: "constant")
            model.setValue("Bo!", forKey: "fullName")
        }
        XCTAssertEqual(misuses.map(\.kind), [.unknownKey, .unknownKey])
        XCTAssertTrue(misuses.first?.message.contains("constant (let)") ?? false, misuses.first?.message ?? "")
        XCTAssertEqual(model.constant, 7)
        XCTAssertEqual(model.firstName, "")
    }

    /// Foundation: `setNilValueForKey:` raises `NSInvalidArgumentException`, "could not set nil as the value for the
    /// key"; a class may override it.
    func testNilForANonOptionalGoesToSetNilValueForKey() throws {
        let model = SettableModel()
        model.age = 4
        let misuses = recordingMisuse { model.setValue(nil, forKey: "age") }
        let misuse = try XCTUnwrap(misuses.first)
        XCTAssertEqual(misuses.count, 1)
        XCTAssertEqual(misuse.kind, .nilValueForNonOptional)
        XCTAssertEqual(misuse.exceptionName, "NSInvalidArgumentException")
        XCTAssertEqual(
            misuse.message, "[\(rendered(model)) setNilValueForKey]: could not set nil as the value for the key age.")
        XCTAssertEqual(model.age, 4, "nothing stored")

        let custom = CustomSettableModel()
        custom.age = 4
        assertNoMisuse {
            custom.setValue(nil, forKey: "age")
            custom.setValue("Bo!", forKey: "fullName")
        }
        XCTAssertEqual(custom.age, 0, "the override stored 0")
        XCTAssertEqual(custom.firstName, "Bo", "the override set the computed key")
    }

    func testAValueOfTheWrongTypeIsMisuseThatNamesTheExpectedType() throws {
        let model = SettableModel()
        let recorder = Recorder()
        model.addObserver(recorder, forKeyPath: "age", options: [.new])
        let misuses = recordingMisuse {
            model.setValue("five", forKey: "age")
            model.setValue(2.5, forKey: "age")
            model.setValue(SettableModel(), forKey: "nickname")
        }
        model.removeObserver(recorder, forKeyPath: "age")
        XCTAssertEqual(misuses.map(\.kind), [.typeMismatch, .typeMismatch, .typeMismatch])
        let first = try XCTUnwrap(misuses.first)
        XCTAssertEqual(first.exceptionName, "NSInvalidArgumentException")
        XCTAssertEqual(
            first.message,
            "[\(rendered(model)) setValue:forKey:]: the value \"five\" (a String) cannot be stored in the key age, of "
                + "type Int.")
        XCTAssertTrue(misuses[2].message.contains("of type Optional<String>"), misuses[2].message)
        XCTAssertEqual(model.age, 0)
        XCTAssertEqual(recorder.notes, [], "nothing was stored, nothing announced")
    }

    /// The value goes into the storage: Swift cannot call a property's setter by name, so its `didSet` does not run.
    func testAPropertyObserverDoesNotRunForAKeyValueCodingSet() {
        let model = SettableModel()
        assertNoMisuse { model.setValue(3, forKey: "watched") }
        XCTAssertEqual(model.watched, 3)
        XCTAssertEqual(model.watchedSets, 0)
        model.watched = 4
        XCTAssertEqual(model.watchedSets, 1, "the setter itself does run it")
    }

    /// A lazy property set before its first read holds the value set; its initializer never runs.
    func testALazyPropertyCanBeSetBeforeItsFirstRead() {
        let model = SettableModel()
        assertNoMisuse { model.setValue(5, forKey: "lazyNumber") }
        XCTAssertEqual(model.lazyNumber, 5)
        XCTAssertEqual(model.lazyInitializerRuns, 0)
    }

    func testSettingAKeyPathSetsTheLastKeyOnTheObjectAlongIt() {
        let model = SettableModel()
        let child = SettableModel()
        let recorder = Recorder()
        assertNoMisuse {
            model.setValue(4, forKeyPath: "child.age")
            model.child = child
            model.addObserver(recorder, forKeyPath: "child.age", options: [.new])
            model.setValue(6, forKeyPath: "child.age")
            model.setValue(SettableModel(), forKeyPath: "child")
        }
        XCTAssertEqual(child.age, 6, "a nil child set nothing; then the child got 6")
        XCTAssertEqual(recorder.notes, [Note("child.age", new: "6"), Note("child.age", new: "0")])
        model.removeObserver(recorder, forKeyPath: "child.age")
        model.nickname = "Nick"
        let misuses = recordingMisuse { model.setValue(1, forKeyPath: "nickname.count") }
        XCTAssertEqual(misuses.map(\.kind), [.unknownKey], "a String does not set keys")
    }

    /// Foundation's `NSArray.setValue(_:forKey:)` sets the key on every element.
    func testSettingAKeyPathThroughACollectionSetsEveryElement() {
        let library = Library()
        library.books = [Book("A", pages: 1), Book("B", pages: 2)]
        assertNoMisuse { library.setValue(10, forKeyPath: "books.pages") }
        XCTAssertEqual(library.books.map(\.pages), [10, 10])
        let misuses = recordingMisuse { library.setValue(1, forKeyPath: "numbers.self") }
        XCTAssertEqual(misuses.map(\.kind), [], "an empty array has no element to refuse")
        library.numbers = [1]
        XCTAssertEqual(recordingMisuse { library.setValue(1, forKeyPath: "numbers.self") }.map(\.kind), [.unknownKey])
    }

    func testTheGuardHearsSetsMadeThroughKeyValueCoding() {
        let model = SettableModel()
        let observer = GuardTestObserver()
        let (_, controller) = makeController(for: observer)
        let log = HandlerLog()
        assertNoMisuse {
            _ = controller.observe(model, keyPath: "plain", options: [.new], handler: log.recording("plain"))
            _ = controller.observe(model, keyPath: "age", options: [.new], handler: log.recording("age"))
            model.setValue("x", forKey: "plain")
            model.setValue(1, forKey: "age")
        }
        XCTAssertEqual(log.all.map(\.new), ["x", 1])
    }
}
