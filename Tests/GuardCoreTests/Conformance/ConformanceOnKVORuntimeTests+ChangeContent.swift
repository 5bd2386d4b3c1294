import Foundation
import GuardCore
import XCTest

/// The conformance suite, continued: what a change carries (prior, old and new values, `nil`, to-many kinds,
/// indexes and sets) and in which order observers see it.
extension ConformanceOnKVORuntimeTests {
    // MARK: Change content

    func testPriorOldAndNewValues() {
        let observer = ConformanceObserver()
        let (_, controller) = makeController(for: observer)
        let model = fixture.makeModel()
        model.name = "a"
        let log = ConformanceLog()
        assertNoMisuse {
            controller.observe(object: model, keyPath: "name", options: [.old, .new, .prior], handler: recording(log))
            model.name = "b"
        }
        XCTAssertEqual(
            log.all,
            [
                .init(keyPath: "name", old: .string("a"), isPrior: true),
                .init(keyPath: "name", old: .string("a"), new: .string("b")),
            ])
    }

    func testANilValueIsPresentButNil() {
        let observer = ConformanceObserver()
        let (_, controller) = makeController(for: observer)
        let model = fixture.makeModel()
        let log = ConformanceLog()
        assertNoMisuse {
            controller.observe(object: model, keyPath: "nickname", options: [.initial, .old, .new], handler: recording(log))
            model.nickname = "Al"
            model.nickname = nil
        }
        XCTAssertEqual(
            log.all,
            [
                .init(keyPath: "nickname", new: .nilValue),
                .init(keyPath: "nickname", old: .nilValue, new: .string("Al")),
                .init(keyPath: "nickname", old: .string("Al"), new: .nilValue),
            ])
    }

    func testAnOrderedToManyInsertionCarriesItsKindAndIndexes() {
        let observer = ConformanceObserver()
        let (_, controller) = makeController(for: observer)
        let model = fixture.makeModel()
        let log = ConformanceLog()
        assertNoMisuse {
            controller.observe(object: model, keyPath: "items", options: [.new], handler: recording(log))
            model.insertItem("a", at: 0)
            model.insertItem("b", at: 0)
        }
        XCTAssertEqual(
            log.all,
            [
                .init(keyPath: "items", kind: .insertion, new: .strings(["a"]), indexes: [0]),
                .init(keyPath: "items", kind: .insertion, new: .strings(["b"]), indexes: [0]),
            ])
    }

    /// Foundation sends a change's prior notifications to the observers of a key oldest registration first and its
    /// change notifications newest first (it pops the pending notifications its prior pass pushed), so each
    /// observer's pair nests inside the pairs of those registered before it; the guard's handlers, one backend
    /// registration each, follow the backend.
    func testPriorsGoOldestFirstAndChangesNewestFirstAcrossControllers() {
        let observers = (0..<3).map { _ in ConformanceObserver() }
        let controllers = observers.map { makeController(for: $0).1 }
        let model = fixture.makeModel()
        let order = ConformanceValueBox<[String]>()
        assertNoMisuse {
            for (index, controller) in controllers.enumerated() {
                controller.observe(object: model, keyPath: "age", options: [.prior, .new]) { _, _, change in
                    order.mutate { $0 = ($0 ?? []) + ["\(change.isPrior ? "will" : "did") \(index)"] }
                }
            }
            model.age = 4
            for controller in controllers { controller.unobserveAll() }
        }
        XCTAssertEqual(order.value, ["will 0", "will 1", "will 2", "did 2", "did 1", "did 0"])
        XCTAssertEqual(registrations(on: model), 0)
    }

    /// Foundation's set mutations (`-willChangeValueForKey:withSetMutation:usingObjects:`, `NSKeyValueObserving.h`):
    /// union → insertion with the objects added as `new`, minus and intersect → removal with the objects removed as
    /// `old`, set → replacement with both; no indexes, and the prior notification carries `old` too.
    func testUnorderedToManyMutationsCarryFoundationsKindsAndSets() {
        let observer = ConformanceObserver()
        let (_, controller) = makeController(for: observer)
        let model = fixture.makeModel()
        let log = ConformanceLog()
        assertNoMisuse {
            controller.observe(object: model, keyPath: "tags", options: [.old, .new, .prior], handler: recording(log))
            model.mutateTags(.union, ["1", "2", "3"])
            model.mutateTags(.minus, ["1", "9"])
            model.mutateTags(.intersect, ["2"])
            model.mutateTags(.set, ["2", "4"])
        }
        XCTAssertEqual(
            log.all,
            [
                .init(keyPath: "tags", kind: .insertion, isPrior: true),
                .init(keyPath: "tags", kind: .insertion, new: .set(["1", "2", "3"])),
                .init(keyPath: "tags", kind: .removal, old: .set(["1"]), isPrior: true),
                .init(keyPath: "tags", kind: .removal, old: .set(["1"])),
                .init(keyPath: "tags", kind: .removal, old: .set(["3"]), isPrior: true),
                .init(keyPath: "tags", kind: .removal, old: .set(["3"])),
                .init(keyPath: "tags", kind: .replacement, old: .set([]), isPrior: true),
                .init(keyPath: "tags", kind: .replacement, old: .set([]), new: .set(["4"])),
            ])
        XCTAssertEqual(model.tags, ["2", "4"])
    }
}
