import Foundation
import GuardCore
import XCTest

/// Unordered to-many properties: `willChangeValue(forKey:withSetMutation:using:)` / `didChangeValue(...)` and the
/// `Set` helpers.
///
/// Foundation (`NSKeyValueObserving.h`, `-willChangeValueForKey:withSetMutation:usingObjects:`): the mutation kinds
/// mean what `NSMutableSet`'s `-unionSet:`, `-minusSet:`, `-intersectSet:` and `-setSet:` do, and map to the change
/// kinds union → insertion, minus → removal, intersect → removal, set → replacement; the old value (removal,
/// replacement) is the set of objects that were removed, the new value (insertion, replacement) the set of objects
/// that were added, and a set change carries no indexes. (The `NSSetMutationMethods` case of the WinObjC / GNUstep
/// KVO conformance tests checks exactly these contents.)
final class SetMutationTests: XCTestCase {
    final class Tagged: KVOObject, @unchecked Sendable {
        @Observed var tags: Set<String> = []
        @Observed var shelf = Shelf()

        override class func keyPathsForValuesAffectingValue(forKey key: String) -> Set<String> {
            key == "tagCount" ? ["tags"] : []
        }

        override func value(forKey key: String) -> Any? {
            key == "tagCount" ? tags.count : super.value(forKey: key)
        }
    }

    final class Shelf: KVOObject, @unchecked Sendable {
        @Observed var labels: Set<Int> = []
    }

    private func set(_ elements: String...) -> String {
        shown(Set(elements.map(AnyHashable.init)))
    }

    /// The change's values as sorted string lists, so the checks do not depend on a set's iteration order.
    private func contents(_ value: Any?) -> [String]? {
        guard let value else { return nil }
        guard let set = value as? Set<AnyHashable> else { return ["not a set: \(value)"] }
        return set.map { "\($0.base)" }.sorted()
    }

    private struct Heard: Equatable {
        var kind: KeyValueChange.Kind
        var old: [String]?
        var new: [String]?
        var isPrior = false
        var hasIndexes = false
    }

    private func heard(_ recorder: Recorder) -> [Heard] {
        recorder.changes.map {
            Heard(
                kind: $0.kind, old: contents($0.oldValue), new: contents($0.newValue), isPrior: $0.isPrior,
                hasIndexes: $0.indexes != nil)
        }
    }

    func testEachMutationKindGivesFoundationsKindAndContents() {
        let model = Tagged()
        let recorder = Recorder()
        whileObserving(model, "tags", with: recorder, options: [.old, .new]) {
            model.insert(["1", "2", "3"], into: \.tags)
            model.remove(["1"], from: \.tags)
            model.insert(["1"], into: \.tags)
            model.remove(["1"], from: \.tags)
            model.intersect(["2"], in: \.tags)
            model.replaceAll(with: ["3"], in: \.tags)
        }
        XCTAssertEqual(
            heard(recorder),
            [
                Heard(kind: .insertion, old: nil, new: ["1", "2", "3"]),
                Heard(kind: .removal, old: ["1"], new: nil),
                Heard(kind: .insertion, old: nil, new: ["1"]),
                Heard(kind: .removal, old: ["1"], new: nil),
                Heard(kind: .removal, old: ["3"], new: nil),
                Heard(kind: .replacement, old: ["2"], new: ["3"]),
            ])
        XCTAssertEqual(model.tags, ["3"])
    }

    func testOnlyObjectsTheMutationReallyAddsOrRemovesAreReported() {
        let model = Tagged()
        model.tags = ["a", "b"]
        let recorder = Recorder()
        whileObserving(model, "tags", with: recorder, options: [.old, .new]) {
            model.insert(["b", "c"], into: \.tags)
            model.remove(["c", "z"], from: \.tags)
            model.replaceAll(with: ["b", "d"], in: \.tags)
        }
        XCTAssertEqual(
            heard(recorder),
            [
                Heard(kind: .insertion, old: nil, new: ["c"]),
                Heard(kind: .removal, old: ["c"], new: nil),
                Heard(kind: .replacement, old: ["a"], new: ["d"]),
            ])
    }

    func testThePriorNotificationCarriesTheRemovedObjects() {
        let model = Tagged()
        model.tags = ["a", "b"]
        let recorder = Recorder()
        whileObserving(model, "tags", with: recorder, options: [.prior, .old, .new]) {
            model.intersect(["a"], in: \.tags)
        }
        XCTAssertEqual(
            heard(recorder),
            [Heard(kind: .removal, old: ["b"], new: nil, isPrior: true), Heard(kind: .removal, old: ["b"], new: nil)])
    }

    func testTheManualPairAnnouncesTheMutation() {
        let model = Tagged()
        model.tags = ["x"]
        let recorder = Recorder()
        whileObserving(model, "tags", with: recorder, options: [.old, .new]) {
            let objects: Set<AnyHashable> = ["x", "y"]
            model.willChangeValue(forKey: "tags", withSetMutation: .set, using: objects)
            model.didChangeValue(forKey: "tags", withSetMutation: .set, using: objects)
        }
        XCTAssertEqual(heard(recorder), [Heard(kind: .replacement, old: [], new: ["y"])])
    }

    func testAnUnpairedDidChangeIsAMisuse() {
        let model = Tagged()
        let misuses = recordingMisuse {
            model.didChangeValue(forKey: "tags", withSetMutation: .union, using: ["a"])
        }
        XCTAssertEqual(misuses, [Expected.unpairedDidChange(object: model, key: "tags")])
    }

    func testAHelperAnnouncesOnceWithoutTheSettersOwnNotification() {
        let model = Tagged()
        let recorder = Recorder()
        whileObserving(model, "tags", with: recorder, options: [.new]) {
            XCTAssertTrue(model.insert(["a"], into: \.tags))
        }
        XCTAssertEqual(heard(recorder).map(\.kind), [.insertion])
    }

    func testADependentKeySeesASetting() {
        let model = Tagged()
        let recorder = Recorder()
        whileObserving(model, "tagCount", with: recorder, options: [.old, .new]) {
            model.insert(["a", "b"], into: \.tags)
        }
        XCTAssertEqual(recorder.notes, [Note("tagCount", old: shown(0), new: shown(2))])
    }

    func testADottedKeyPathEditsTheSetAtTheEndOfTheChain() {
        let model = Tagged()
        let shelf = model.shelf
        let onShelf = Recorder()
        let onRoot = Recorder()
        assertNoMisuse {
            shelf.addObserver(onShelf, forKeyPath: "labels", options: [.new])
            model.addObserver(onRoot, forKeyPath: "shelf.labels", options: [.new])
            XCTAssertTrue(model.insert([7], into: \.shelf.labels))
            shelf.removeObserver(onShelf, forKeyPath: "labels")
            model.removeObserver(onRoot, forKeyPath: "shelf.labels")
        }
        XCTAssertEqual(heard(onShelf), [Heard(kind: .insertion, old: nil, new: ["7"])])
        XCTAssertEqual(heard(onRoot), [Heard(kind: .insertion, old: nil, new: ["7"])])
        XCTAssertEqual(shelf.labels, [7])
    }

    func testAHelperForAKeyPathWithoutANameChangesNothing() {
        let model = Tagged()
        model.tags = ["a"]
        let recorder = Recorder()
        var done = true
        let misuses = recordingMisuse {
            model.addObserver(recorder, forKeyPath: "tags", options: [.new])
            done = model.insert(["b"], into: \.unnamedTags)
            model.removeObserver(recorder, forKeyPath: "tags")
        }
        XCTAssertFalse(done)
        XCTAssertEqual(misuses.map(\.kind), [.unknownKey])
        XCTAssertEqual(model.tags, ["a"], "nothing changed")
        XCTAssertEqual(recorder.count, 0, "nothing announced")
    }

    func testTheGuardsTypedHandlerGetsTheSets() {
        let model = Tagged()
        let owner = Recorder()
        let controller = ObservationController(observer: owner)
        let added = TestBox<[Set<String>]>([])
        assertNoMisuse {
            controller.observe(model, \.tags, options: [.new]) { _, _, change in
                added.mutate { $0.append(change.newValue ?? ["not a Set<String>"]) }
            }
            model.insert(["a", "b"], into: \.tags)
            model.replaceAll(with: ["c"], in: \.tags)
            controller.unobserveAll()
        }
        XCTAssertEqual(added.get(), [["a", "b"], ["c"]])
    }
}

extension SetMutationTests.Tagged {
    /// A settable computed property: its key path has no name.
    var unnamedTags: Set<String> {
        get { tags }
        set { tags = newValue }
    }
}
