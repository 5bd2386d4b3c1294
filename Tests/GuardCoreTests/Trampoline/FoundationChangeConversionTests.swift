import Foundation
import GuardCore
import XCTest

/// Foundation's change dictionary → `KeyValueChange`, the conversion the NSObject backend relies on (platform-free,
/// so it is checked here on every platform).
final class FoundationChangeConversionTests: XCTestCase {
    func testASettingWithNewAndOldValues() {
        let change = KeyValueChange(
            keyPath: "age", foundationChange: ["kind": NSNumber(value: 1), "new": NSNumber(value: 42), "old": 41])
        XCTAssertEqual(change.kind, .setting)
        XCTAssertEqual(change.keyPath, "age")
        XCTAssertEqual(change.newValue(as: NSNumber.self)?.intValue, 42)
        XCTAssertEqual(change.oldValue(as: Int.self), 41)
        XCTAssertNil(change.indexes)
        XCTAssertFalse(change.isPrior)
    }

    func testNSNullIsPresentButNilAndAMissingEntryIsAbsent() {
        let change = KeyValueChange(keyPath: "nickname", foundationChange: ["kind": 1 as UInt, "new": NSNull()])
        XCTAssertEqual(ConformanceValue.of(change.newValue), .nilValue, "present but nil")
        XCTAssertNotNil(change.newValue, "nil means not asked for; NSNull means the value is nil")
        XCTAssertNil(change.oldValue, "not in the dictionary: not asked for")
        XCTAssertNil(change.newValue(as: String.self))
    }

    func testEveryKindAndItsIndexes() {
        for kind in KeyValueChange.Kind.allCases {
            let change = KeyValueChange(
                keyPath: "items",
                foundationChange: ["kind": NSNumber(value: kind.rawValue), "indexes": NSIndexSet(indexesIn: NSRange(location: 2, length: 2))])
            XCTAssertEqual(change.kind, kind)
            XCTAssertEqual(change.indexes.map(Array.init), [2, 3])
        }
        let swiftIndexes = KeyValueChange(keyPath: "items", foundationChange: ["kind": 2, "indexes": IndexSet([0, 5])])
        XCTAssertEqual(swiftIndexes.kind, .insertion)
        XCTAssertEqual(swiftIndexes.indexes, IndexSet([0, 5]))
    }

    func testAnUnknownOrMissingKindReadsAsASetting() {
        XCTAssertEqual(KeyValueChange(keyPath: "k", foundationChange: ["kind": 99]).kind, .setting)
        XCTAssertEqual(KeyValueChange(keyPath: "k", foundationChange: ["kind": -1]).kind, .setting)
        XCTAssertEqual(KeyValueChange(keyPath: "k", foundationChange: ["kind": "setting"]).kind, .setting)
        XCTAssertEqual(KeyValueChange(keyPath: "k", foundationChange: [:]).kind, .setting)
    }

    func testThePriorFlagFromANumberOrABool() {
        XCTAssertTrue(KeyValueChange(keyPath: "k", foundationChange: ["notificationIsPrior": NSNumber(value: true)]).isPrior)
        XCTAssertTrue(KeyValueChange(keyPath: "k", foundationChange: ["notificationIsPrior": true]).isPrior)
        XCTAssertFalse(KeyValueChange(keyPath: "k", foundationChange: ["notificationIsPrior": NSNumber(value: false)]).isPrior)
        XCTAssertFalse(KeyValueChange(keyPath: "k", foundationChange: [:]).isPrior)
    }

    func testTheEntryClosureIsAskedForEachFieldByItsRawValue() {
        var asked: [String] = []
        _ = KeyValueChange(keyPath: "k") { field in
            asked.append(field.rawValue)
            return nil
        }
        XCTAssertEqual(Set(asked), ["kind", "new", "old", "indexes", "notificationIsPrior"])
        XCTAssertEqual(Set(FoundationChangeField.allCases.map(\.rawValue)), Set(asked))
    }

    func testFoundationChangeIsTheInverse() {
        let nilValue: String? = nil
        let original = KeyValueChange(
            kind: .replacement, keyPath: "items", newValue: ["b"], oldValue: nilValue as Any, indexes: IndexSet([1]),
            isPrior: false)
        let dictionary = original.foundationChange
        XCTAssertEqual((dictionary["kind"] as? NSNumber)?.uintValue, 4)
        XCTAssertTrue(dictionary["old"] is NSNull, "a present-but-nil value travels as NSNull")
        XCTAssertNil(dictionary["notificationIsPrior"])
        let back = KeyValueChange(keyPath: "items", foundationChange: dictionary)
        XCTAssertEqual(back.kind, .replacement)
        XCTAssertEqual(back.newValue(as: [String].self), ["b"])
        XCTAssertEqual(ConformanceValue.of(back.oldValue), .nilValue)
        XCTAssertEqual(back.indexes, IndexSet([1]))
        XCTAssertTrue(KeyValueChange(kind: .setting, keyPath: "k", isPrior: true).foundationChange["notificationIsPrior"] as? NSNumber == true)
        XCTAssertNil(KeyValueChange(kind: .setting, keyPath: "k").foundationChange["new"], "not asked for stays absent")
    }
}
