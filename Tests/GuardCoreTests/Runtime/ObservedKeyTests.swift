import GuardCore
import XCTest

/// A generic model: its field offsets are known only at run time.
private final class Box<Content>: KVOObject, @unchecked Sendable {
    @Observed var label = ""
    @Observed var content: Content

    init(_ content: Content) {
        _content = Observed(wrappedValue: content)
    }
}

/// `@Observed` learns each property's key the first time it is set while its object is observed, then caches it in
/// the property. Every path of the setter stores the value, and only a set of an observed key notifies.
final class ObservedKeyTests: XCTestCase {
    func testEveryPathOfTheSetterStoresTheValue() {
        let person = Person()
        person.age = 1  // nobody observes the object
        XCTAssertEqual(person.age, 1)
        let recorder = Recorder()
        whileObserving(person, "name", with: recorder, options: [.new]) {
            person.age = 2  // the object is observed, this key is not
            XCTAssertEqual(person.age, 2)
            person.name = "Ada"  // observed
            XCTAssertEqual(person.name, "Ada")
            person.age = 3  // not observed, key now cached
            XCTAssertEqual(person.age, 3)
        }
        XCTAssertEqual(recorder.notes, [Note("name", new: shown("Ada"))])
        whileObserving(person, "age", with: recorder, options: [.old, .new]) {
            person.age = 4
        }
        XCTAssertEqual(recorder.notes.last, Note("age", old: shown(3), new: shown(4)))
        assertAllFrom(person, recorder)
    }

    func testPropertiesAtTheSameOffsetOfDifferentClassesKeepTheirOwnKeys() {
        let account = Account()
        let bank = Bank()
        let recorder = Recorder()
        assertNoMisuse {
            account.addObserver(recorder, forKeyPath: "balance", options: [.new])
            bank.addObserver(recorder, forKeyPath: "name", options: [.new])
            account.balance = 10
            bank.name = "First"
            account.balance = 11
            account.removeObserver(recorder, forKeyPath: "balance")
            bank.removeObserver(recorder, forKeyPath: "name")
        }
        XCTAssertEqual(
            recorder.notes, [Note("balance", new: shown(10)), Note("name", new: shown("First")), Note("balance", new: shown(11))])
    }

    func testInheritedAndOwnPropertiesOfASubclass() {
        let student = Student()
        let recorder = Recorder()
        assertNoMisuse {
            student.addObserver(recorder, forKeyPath: "id", options: [.old, .new])
            student.addObserver(recorder, forKeyPath: "school", options: [.new])
            student.id = 7
            student.school = "Hill"
            student.removeObserver(recorder, forKeyPath: "id")
            student.removeObserver(recorder, forKeyPath: "school")
        }
        XCTAssertEqual(recorder.notes, [Note("id", old: shown(0), new: shown(7)), Note("school", new: shown("Hill"))])
        assertAllFrom(student, recorder)
    }

    func testPropertiesOfGenericClasses() {
        let numbers = Box(1)
        let words = Box("one")
        let recorder = Recorder()
        assertNoMisuse {
            numbers.addObserver(recorder, forKeyPath: "content", options: [.old, .new])
            words.addObserver(recorder, forKeyPath: "content", options: [.old, .new])
            words.addObserver(recorder, forKeyPath: "label", options: [.new])
            numbers.content = 2
            numbers.label = "unobserved on this box"
            words.content = "two"
            words.label = "tag"
            numbers.removeObserver(recorder, forKeyPath: "content")
            words.removeObserver(recorder, forKeyPath: "content")
            words.removeObserver(recorder, forKeyPath: "label")
        }
        XCTAssertEqual(
            recorder.notes,
            [
                Note("content", old: shown(1), new: shown(2)), Note("content", old: shown("one"), new: shown("two")),
                Note("label", new: shown("tag")),
            ])
        XCTAssertEqual(numbers.label, "unobserved on this box")
    }
}
