import Foundation
import GuardCore
import XCTest

/// A controller's removal history for one live object with many distinct key paths removed: double removal and
/// removal of something never registered stay told apart for every one of them, by the key's bytes. (How a lookup
/// stays O(1) there is ExactKeySetTests' business: past a few key paths an object's removed ones are hashed.)
final class GuardRemovalHistoryTests: XCTestCase {
    /// A model whose `value(forKey:)` answers any key starting with "dyn" (a dictionary-backed model).
    private final class DynamicModel: KVOObject, @unchecked Sendable {
        override func value(forKey key: String) -> Any? {
            key.hasPrefix("dyn") ? key : super.value(forKey: key)
        }
    }

    private let keyCount = 1_000

    /// Observes and unobserves `keys` of `model` one after the other, then asks about each again and about keys never
    /// registered: every removal again is a double removal, every other key never registered.
    private func assertRemovalsToldApart(retainsObservedObjects: Bool, line: UInt = #line) {
        let observer = GuardTestObserver()
        let (sink, controller) = makeController(for: observer, retainsObservedObjects: retainsObservedObjects)
        let model = DynamicModel()
        let keys = (0..<keyCount).map { "dyn\($0)" }
        let misuses = recordingMisuse {
            for key in keys {
                XCTAssertEqual(controller.observe(model, keyPath: key) { _, _, _ in }, .registered, key, line: line)
                XCTAssertEqual(controller.unobserve(model, keyPath: key), .removed, key, line: line)
            }
            XCTAssertEqual(sink.events, [], line: line)
            let again = keys.map { controller.unobserve(model, keyPath: $0) }
            XCTAssertEqual(again, Array(repeating: .alreadyRemoved, count: keyCount), line: line)
            let never = (keyCount..<keyCount * 2).map { controller.unobserve(model, keyPath: "dyn\($0)") }
            XCTAssertEqual(never, Array(repeating: .notRegistered, count: keyCount), line: line)
        }
        XCTAssertEqual(misuses, [], line: line)
        XCTAssertEqual(sink.count(of: .doubleRemoval), keyCount, line: line)
        XCTAssertEqual(sink.count(of: .removalOfUnregistered), keyCount, line: line)
        XCTAssertEqual(controller.registrationCount, 0, line: line)
    }

    func testAThousandKeyPathsOfOneObjectWithAControllerThatRetainsIt() {
        assertRemovalsToldApart(retainsObservedObjects: true)
    }

    func testAThousandKeyPathsOfOneObjectWithAControllerThatHoldsItWeakly() {
        assertRemovalsToldApart(retainsObservedObjects: false)
    }

    /// Removals from one object after another, and from new objects that may take a gone object's address: each
    /// removal is remembered for its own object only (the history remembers the entry the last removal used, and
    /// must never add to it for another object), so a second removal is a double removal and a removal from a new
    /// object is one of something never registered, whichever object the removal before was from.
    func testEachObjectsRemovalsAreItsOwnWhateverTheRemovalBeforeWasFrom() {
        for retains in [true, false] {
            let observer = GuardTestObserver()
            let (sink, controller) = makeController(for: observer, retainsObservedObjects: retains)
            let kept = DynamicModel()
            var reusedAddress = false
            var previousAddress: ObjectIdentifier?
            let misuses = recordingMisuse {
                for round in 0..<200 {
                    let model = DynamicModel()
                    reusedAddress = reusedAddress || previousAddress == ObjectIdentifier(model)
                    let key = "dyn\(round % 3)"
                    XCTAssertEqual(controller.unobserve(model, keyPath: key), .notRegistered, "round \(round)")
                    // A round's last removals and the next round's first are from its new object, so the next
                    // round's new object (perhaps at this one's address) is removed from right after this one.
                    for (object, key) in [(model, key), (kept, key), (model, "dyn7"), (model, "dyn8")] {
                        XCTAssertEqual(controller.observe(object, keyPath: key) { _, _, _ in }, .registered)
                        XCTAssertEqual(controller.unobserve(object, keyPath: key), .removed, "round \(round)")
                    }
                    XCTAssertEqual(controller.unobserve(model, keyPath: key), .alreadyRemoved, "round \(round)")
                    XCTAssertEqual(controller.unobserve(model, keyPath: "dyn7"), .alreadyRemoved, "round \(round)")
                    XCTAssertEqual(controller.unobserve(model, keyPath: "dyn8"), .alreadyRemoved, "round \(round)")
                    XCTAssertEqual(controller.unobserve(model, keyPath: "dyn9"), .notRegistered, "round \(round)")
                    XCTAssertEqual(controller.unobserve(kept, keyPath: key), .alreadyRemoved, "round \(round)")
                    previousAddress = ObjectIdentifier(model)
                }
            }
            XCTAssertEqual(misuses, [])
            XCTAssertEqual(sink.count(of: .doubleRemoval), 800, "retains: \(retains)")
            XCTAssertEqual(sink.count(of: .removalOfUnregistered), 400, "retains: \(retains)")
            // Not guaranteed by the allocator, but what makes the first check above mean something: say so if it
            // never happened.
            if !reusedAddress { print("note: no new object took the previous one's address in this run") }
        }
    }

    /// Two spellings of one string (é as one scalar, or e and a combining accent) are two key paths: removing one
    /// says nothing about the other, with few key paths removed and with many.
    func testTheOtherSpellingOfARemovedKeyPathWasNeverRegistered() {
        let observer = GuardTestObserver()
        let (sink, controller) = makeController(for: observer)
        let model = DynamicModel()
        let composed = { (index: Int) in "dyn_caf\u{E9}_\(index)" }
        let decomposed = { (index: Int) in "dyn_cafe\u{301}_\(index)" }
        XCTAssertEqual(composed(0), decomposed(0), "the test needs two spellings `==` calls equal")
        var checked: [Int] = []
        for index in 0..<keyCount {
            XCTAssertEqual(controller.observe(model, keyPath: composed(index)) { _, _, _ in }, .registered)
            XCTAssertEqual(controller.unobserve(model, keyPath: composed(index)), .removed)
            // With one key path removed, a few, and a thousand.
            guard [0, 3, keyCount - 1].contains(index) else { continue }
            checked.append(index)
            for earlier in [0, index] {
                XCTAssertEqual(controller.unobserve(model, keyPath: decomposed(earlier)), .notRegistered, "\(earlier)")
                XCTAssertEqual(controller.unobserve(model, keyPath: composed(earlier)), .alreadyRemoved, "\(earlier)")
            }
        }
        XCTAssertEqual(checked, [0, 3, keyCount - 1])
        // The other spelling, registered and removed in its turn, is remembered on its own.
        XCTAssertEqual(controller.observe(model, keyPath: decomposed(5)) { _, _, _ in }, .registered)
        XCTAssertEqual(controller.unobserve(model, keyPath: decomposed(5)), .removed)
        XCTAssertEqual(controller.unobserve(model, keyPath: decomposed(5)), .alreadyRemoved)
        XCTAssertEqual(controller.unobserve(model, keyPath: decomposed(6)), .notRegistered)
        XCTAssertEqual(sink.count(of: .duplicateObservation), 0)
    }
}
