import Foundation
import GuardCore
import XCTest

/// The Swift key path overloads: `\.age`, `\.wallet.balance`, inherited properties, and `keyPathString(for:)`.
final class TypedKeyPathTests: XCTestCase {
    func testKeyPathStrings() {
        let person = Person()
        let student = Student()
        XCTAssertEqual(person.keyPathString(for: \.age), "age")
        XCTAssertEqual(person.keyPathString(for: \.nickname), "nickname")
        XCTAssertEqual(person.keyPathString(for: \.account), "account")
        XCTAssertEqual(person.keyPathString(for: \.wallet.balance), "wallet.balance")
        XCTAssertEqual(person.keyPathString(for: \.plainNote), "plainNote")
        XCTAssertEqual(student.keyPathString(for: \.school), "school")
        XCTAssertEqual(student.keyPathString(for: \.id), "id")
        XCTAssertEqual(student.keyPathString(for: \.id), "id", "a cached answer is the same")
    }

    func testKeyPathsWithoutANameHaveNoString() {
        let person = Person()
        XCTAssertNil(person.keyPathString(for: \.fullName))
        XCTAssertNil(person.keyPathString(for: \.ageAlias))
        XCTAssertNil(person.keyPathString(for: \.items.count))
        XCTAssertNil(Student().keyPathString(for: \.idAlias))
    }

    /// A class that can be subclassed: its plain stored properties have names only when declared `final`.
    class Subclassable: KVOObject, @unchecked Sendable {
        @Observed var observed = 0
        var plain = 3
        final var fixed = 4
    }

    func testPlainStoredPropertiesOfASubclassableClassAreNamedOnlyWhenFinal() {
        let object = Subclassable()
        XCTAssertEqual(object.keyPathString(for: \.observed), "observed")
        XCTAssertEqual(object.keyPathString(for: \.fixed), "fixed")
        XCTAssertNil(object.keyPathString(for: \.plain), "reached through overridable accessors: no name")
    }

    func testTheIdentityKeyPathHasNoName() {
        XCTAssertNil(Person().keyPathString(for: \.self))
        XCTAssertNil(Subclassable().keyPathString(for: \.self))
        let owner = Recorder()
        let sink = CountingSink()
        let controller = ObservationController(observer: owner, diagnosticSink: sink)
        XCTAssertEqual(controller.observe(Person(), \.self) { _, _, _ in }, .invalid(.unobservableKeyPath))
        XCTAssertEqual(sink.count(of: .invalidArgument), 1)
    }

    /// Computed properties that read `@Observed` ones: one that would trap if read, one with a side effect, and a
    /// settable one of a base class that, from a subclass root, prints just like the property it reads.
    class ComputedBase: KVOObject, @unchecked Sendable {
        @Observed var items: [Int] = []
        @Observed var count = 0
        @Observed var value = 0
        private(set) var reads = 0
        var first: Int { items[0] }
        var counted: Int {
            reads += 1
            return count
        }
        var doubled: Int {
            get { value * 2 }
            set { value = newValue / 2 }
        }
    }

    final class ComputedSub: ComputedBase, @unchecked Sendable {}

    func testNamingNeverRunsTheGetterOfAReadOnlyComputedProperty() {
        let model = ComputedBase()
        XCTAssertNil(model.keyPathString(for: \.first), "reading it would trap: the index is out of range")
        XCTAssertNil(model.keyPathString(for: \.counted))
        XCTAssertEqual(model.reads, 0)
        XCTAssertEqual(model.keyPathString(for: \.count), "count")
    }

    func testASettableComputedPropertyOfABaseClassIsNotNamedAfterThePropertyItReads() {
        let model = ComputedSub()
        XCTAssertNil(model.keyPathString(for: \ComputedSub.doubled))
        XCTAssertNil(ComputedBase().keyPathString(for: \ComputedBase.doubled))
        XCTAssertEqual(model.keyPathString(for: \ComputedSub.value), "value")
        XCTAssertEqual(model.keyPathString(for: \ComputedSub.items), "items")
    }

    func testAddAndRemoveWithATypedKeyPath() {
        let person = Person()
        let recorder = Recorder()
        assertNoMisuse {
            person.addObserver(recorder, forKeyPath: \.age, options: [.old, .new], context: Contexts.first)
            XCTAssertEqual(person.observedKeyPaths, ["age"])
            person.age = 2
            person.removeObserver(recorder, forKeyPath: \.age)
            person.age = 3
        }
        XCTAssertEqual(recorder.notes, [Note("age", old: shown(0), new: shown(2), context: Contexts.first)])
        XCTAssertEqual(person.observationCount, 0)
        assertAllFrom(person, recorder)
    }

    func testATypedNonOptionalChain() {
        let person = Person()
        let recorder = Recorder()
        assertNoMisuse {
            person.addObserver(recorder, forKeyPath: \.wallet.balance, options: [.new])
            XCTAssertEqual(person.observedKeyPaths, ["wallet.balance"])
            person.wallet.balance = 8
            let replacement = Account()
            replacement.balance = 80
            person.wallet = replacement
            person.removeObserver(recorder, forKeyPath: \.wallet.balance)
            person.wallet.balance = 9
        }
        XCTAssertEqual(recorder.notes, [Note("wallet.balance", new: shown(8)), Note("wallet.balance", new: shown(80))])
    }

    func testAnInheritedPropertyThroughTheSubclass() {
        let student = Student()
        let recorder = Recorder()
        assertNoMisuse {
            student.addObserver(recorder, forKeyPath: \Student.id, options: [.initial, .new])
            student.addObserver(recorder, forKeyPath: \.school, options: [.new])
            student.id = 5
            student.school = "North"
            student.removeObserver(recorder, forKeyPath: \Student.id)
            student.removeObserver(recorder, forKeyPath: \.school)
            student.id = 6
        }
        XCTAssertEqual(
            recorder.notes, [Note("id", new: shown(0)), Note("id", new: shown(5)), Note("school", new: shown("North"))])
        XCTAssertEqual(student.observationCount, 0)
    }

    func testRemoveWithATypedKeyPathAndAContext() {
        let person = Person()
        let recorder = Recorder()
        assertNoMisuse {
            person.addObserver(recorder, forKeyPath: \.name, context: Contexts.first)
            person.addObserver(recorder, forKeyPath: \.name, context: Contexts.second)
            person.removeObserver(recorder, forKeyPath: \.name, context: Contexts.first)
            person.name = "Ann"
            person.removeObserver(recorder, forKeyPath: \.name, context: Contexts.second)
        }
        XCTAssertEqual(recorder.notes, [Note("name", context: Contexts.second)])
        XCTAssertEqual(person.observationCount, 0)
    }

    func testTypedAndStringKeyPathsNameTheSameRegistration() {
        let person = Person()
        let recorder = Recorder()
        assertNoMisuse {
            person.addObserver(recorder, forKeyPath: \.age)
            person.removeObserver(recorder, forKeyPath: "age")
            person.addObserver(recorder, forKeyPath: "wallet.balance")
            person.removeObserver(recorder, forKeyPath: \.wallet.balance)
        }
        XCTAssertEqual(person.observationCount, 0)
    }

    func testRemovingAnUnregisteredTypedKeyPathIsNotRegisteredUnderItsName() {
        let person = Person()
        let recorder = Recorder()
        let misuses = recordingMisuse {
            person.removeObserver(recorder, forKeyPath: \.wallet.balance)
            person.removeObserver(recorder, forKeyPath: \.age, context: Contexts.third)
        }
        XCTAssertEqual(
            misuses,
            [
                Expected.notRegistered(observer: recorder, object: person, keyPath: "wallet.balance"),
                Expected.notRegistered(observer: recorder, object: person, keyPath: "age"),
            ])
    }

    func testTypedToManyHelpersAnnounceAKeyThatOptedOutOfAutomaticNotification() {
        let model = ManualModel()
        let recorder = Recorder()
        assertNoMisuse {
            model.addObserver(recorder, forKeyPath: \.songs, options: [.old, .new])
            model.insert(["a", "b"], at: IndexSet([0, 1]), into: \.songs)
            model.replaceElements(at: IndexSet([1]), with: ["B"], in: \.songs)
            model.removeElements(at: IndexSet([0]), from: \.songs)
            model.removeObserver(recorder, forKeyPath: \.songs)
        }
        XCTAssertEqual(model.songs, ["B"])
        XCTAssertEqual(
            recorder.notes,
            [
                Note("songs", .insertion, new: shown(["a", "b"]), indexes: [0, 1]),
                Note("songs", .replacement, old: shown(["b"]), new: shown(["B"]), indexes: [1]),
                Note("songs", .removal, old: shown(["a"]), indexes: [0]),
            ])
    }
}
