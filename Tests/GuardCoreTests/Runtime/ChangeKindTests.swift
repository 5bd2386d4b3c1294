import Foundation
import GuardCore
import XCTest

/// Setting, insertion, removal and replacement, with indexes, through the typed helpers and by hand.
final class ChangeKindTests: XCTestCase {
    func testKindsHaveFoundationsRawValues() {
        XCTAssertEqual(KeyValueChange.Kind.setting.rawValue, 1)
        XCTAssertEqual(KeyValueChange.Kind.insertion.rawValue, 2)
        XCTAssertEqual(KeyValueChange.Kind.removal.rawValue, 3)
        XCTAssertEqual(KeyValueChange.Kind.replacement.rawValue, 4)
        XCTAssertEqual(KeyValueChange.Kind.allCases, [.setting, .insertion, .removal, .replacement])
    }

    func testAssigningAWholeArrayIsASettingWithoutIndexes() {
        let person = Person()
        let recorder = Recorder()
        whileObserving(person, "items", with: recorder, options: [.old, .new]) {
            person.items = ["a", "b"]
        }
        XCTAssertEqual(recorder.notes, [Note("items", .setting, old: shown([String]()), new: shown(["a", "b"]))])
        XCTAssertNil(recorder.changes.first?.indexes)
    }

    // MARK: Typed helpers

    func testInsertHelperIsOneInsertionWithIndexesAndTheInsertedElements() throws {
        let person = Person()
        person.items = ["a", "b", "c"]
        let recorder = Recorder()
        whileObserving(person, "items", with: recorder, options: [.prior, .old, .new]) {
            person.insert(["x", "y"], at: IndexSet([1, 2]), into: \.items)
        }
        XCTAssertEqual(person.items, ["a", "x", "y", "b", "c"])
        // An insertion has no old elements (Foundation sends no old value for it), even with `.old`.
        XCTAssertEqual(
            recorder.notes,
            [
                Note.prior("items", .insertion, indexes: [1, 2]),
                Note("items", .insertion, new: shown(["x", "y"]), indexes: [1, 2]),
            ])
        let change = try XCTUnwrap(recorder.changes.last)
        XCTAssertEqual(change.newValue(as: [String].self), ["x", "y"])
        XCTAssertEqual(change.indexes, IndexSet([1, 2]))
    }

    func testRemoveHelperIsOneRemovalWithIndexesAndTheRemovedElements() {
        let person = Person()
        person.items = ["a", "b", "c", "d"]
        let recorder = Recorder()
        whileObserving(person, "items", with: recorder, options: [.prior, .old, .new]) {
            person.removeElements(at: IndexSet([0, 2]), from: \.items)
        }
        XCTAssertEqual(person.items, ["b", "d"])
        // A removal has no new elements.
        XCTAssertEqual(
            recorder.notes,
            [
                Note.prior("items", .removal, old: shown(["a", "c"]), indexes: [0, 2]),
                Note("items", .removal, old: shown(["a", "c"]), indexes: [0, 2]),
            ])
    }

    func testReplaceHelperIsOneReplacementWithReplacedAndReplacingElements() {
        let person = Person()
        person.items = ["a", "b", "c", "d"]
        let recorder = Recorder()
        whileObserving(person, "items", with: recorder, options: [.old, .new]) {
            person.replaceElements(at: IndexSet([1, 3]), with: ["B", "D"], in: \.items)
        }
        XCTAssertEqual(person.items, ["a", "B", "c", "D"])
        XCTAssertEqual(
            recorder.notes, [Note("items", .replacement, old: shown(["b", "d"]), new: shown(["B", "D"]), indexes: [1, 3])])
    }

    func testHelpersWithoutValueOptionsCarryKindAndIndexesOnly() {
        let person = Person()
        person.items = ["a"]
        let recorder = Recorder()
        whileObserving(person, "items", with: recorder) {
            person.insert(["b"], at: IndexSet([1]), into: \.items)
            person.replaceElements(at: IndexSet([0]), with: ["A"], in: \.items)
            person.removeElements(at: IndexSet([1]), from: \.items)
        }
        XCTAssertEqual(person.items, ["A"])
        XCTAssertEqual(
            recorder.notes,
            [
                Note("items", .insertion, indexes: [1]),
                Note("items", .replacement, indexes: [0]),
                Note("items", .removal, indexes: [1]),
            ])
    }

    func testHelpersOnAnUnobservedObjectJustMutate() {
        let person = Person()
        assertNoMisuse {
            person.insert(["a", "b", "c"], at: IndexSet([0, 1, 2]), into: \.items)
            person.removeElements(at: IndexSet([1]), from: \.items)
            person.replaceElements(at: IndexSet([0]), with: ["z"], in: \.items)
        }
        XCTAssertEqual(person.items, ["z", "c"])
    }

    func testAutomaticNotificationStillWorksAfterAHelper() {
        let person = Person()
        let recorder = Recorder()
        whileObserving(person, "items", with: recorder, options: [.new]) {
            person.insert(["a"], at: IndexSet([0]), into: \.items)
            person.items.append("b")
        }
        XCTAssertEqual(
            recorder.notes,
            [Note("items", .insertion, new: shown(["a"]), indexes: [0]), Note("items", .setting, new: shown(["a", "b"]))])
    }

    // MARK: By hand

    func testManualInsertion() {
        let model = ManualModel()
        model.songs = ["a", "b"]
        let recorder = Recorder()
        whileObserving(model, "songs", with: recorder, options: [.prior, .old, .new]) {
            model.willChange(.insertion, valuesAt: IndexSet([0, 3]), forKey: "songs")
            model.songs.insert("x", at: 0)
            model.songs.insert("y", at: 3)
            model.didChange(.insertion, valuesAt: IndexSet([0, 3]), forKey: "songs")
        }
        XCTAssertEqual(model.songs, ["x", "a", "b", "y"])
        XCTAssertEqual(
            recorder.notes,
            [
                Note.prior("songs", .insertion, indexes: [0, 3]),
                Note("songs", .insertion, new: shown(["x", "y"]), indexes: [0, 3]),
            ])
    }

    func testManualRemoval() {
        let model = ManualModel()
        model.songs = ["a", "b", "c"]
        let recorder = Recorder()
        whileObserving(model, "songs", with: recorder, options: [.prior, .old, .new]) {
            model.willChange(.removal, valuesAt: IndexSet([1]), forKey: "songs")
            model.songs.remove(at: 1)
            model.didChange(.removal, valuesAt: IndexSet([1]), forKey: "songs")
        }
        XCTAssertEqual(model.songs, ["a", "c"])
        XCTAssertEqual(
            recorder.notes,
            [
                Note.prior("songs", .removal, old: shown(["b"]), indexes: [1]),
                Note("songs", .removal, old: shown(["b"]), indexes: [1]),
            ])
    }

    func testAManualToManyChangeOverAHugeIndexSetCarriesTheElementsThatExist() {
        // The index set spans far more positions than anything could hold; the values are read range by range.
        let model = ManualModel()
        model.songs = ["a", "b", "c"]
        let recorder = Recorder()
        let everything = IndexSet(integersIn: 0..<Int.max)
        whileObserving(model, "songs", with: recorder, options: [.prior, .old, .new]) {
            model.willChange(.replacement, valuesAt: everything, forKey: "songs")
            model.songs = ["x", "y"]
            model.didChange(.replacement, valuesAt: everything, forKey: "songs")
        }
        let changes = recorder.changes
        XCTAssertEqual(changes.map(\.isPrior), [true, false])
        XCTAssertEqual(changes.map(\.indexes), [everything, everything])
        XCTAssertEqual(changes.map { $0.oldValue.map(shown) }, [shown(["a", "b", "c"]), shown(["a", "b", "c"])])
        XCTAssertEqual(changes.last?.newValue.map(shown), shown(["x", "y"]))
    }

    func testManualReplacement() {
        let model = ManualModel()
        model.songs = ["a", "b", "c"]
        let recorder = Recorder()
        whileObserving(model, "songs", with: recorder, options: [.old, .new]) {
            model.willChange(.replacement, valuesAt: IndexSet([0, 2]), forKey: "songs")
            model.songs[0] = "A"
            model.songs[2] = "C"
            model.didChange(.replacement, valuesAt: IndexSet([0, 2]), forKey: "songs")
        }
        XCTAssertEqual(model.songs, ["A", "b", "C"])
        XCTAssertEqual(
            recorder.notes, [Note("songs", .replacement, old: shown(["a", "c"]), new: shown(["A", "C"]), indexes: [0, 2])])
    }

    func testManualKeysAreNotAnnouncedBySettingThem() {
        let model = ManualModel()
        let recorder = Recorder()
        whileObserving(model, "songs", with: recorder, options: [.new]) {
            model.songs = ["a"]
            model.songs.append("b")
        }
        XCTAssertEqual(recorder.notes, [])
        XCTAssertEqual(model.songs, ["a", "b"])
    }

    func testAnUnpairedToManyDidChangeIsMisuse() {
        let model = ManualModel()
        let misuses = recordingMisuse {
            model.didChange(.insertion, valuesAt: IndexSet([0]), forKey: "songs")
        }
        XCTAssertEqual(misuses, [Expected.unpairedDidChange(object: model, key: "songs")])
    }
}
