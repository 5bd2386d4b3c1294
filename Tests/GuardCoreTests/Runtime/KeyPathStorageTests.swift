@testable import GuardCore
import XCTest

/// ``KeyPathStorage`` reads each component's kind from the key path object, as the standard library laid it out.
final class KeyPathStorageTests: XCTestCase {
    final class Sealed: KVOObject, @unchecked Sendable {
        @Observed var count = 0
        @Observed var next: Sealed?
        var plain = 0
        var values: [Int] = [1]
        var readOnly: Int { count }
        subscript(index: Int) -> Int {
            get { values[index] }
            set { values[index] = newValue }
        }
        subscript(a: String, b: Int, c: [Int]) -> Int { b }
    }

    private func kinds(_ keyPath: AnyKeyPath) -> [String]? {
        KeyPathStorage.components(of: keyPath)?.map { component in
            switch component.kind {
            case .stored: "stored"
            case .optional: "optional"
            case .computed:
                "computed" + (component.isSettable ? " settable" : "") + (component.hasArguments ? " arguments" : "")
            }
        }
    }

    func testComponentsReadFromStorage() {
        XCTAssertEqual(kinds(\Sealed.plain), ["stored"])
        XCTAssertEqual(kinds(\Sealed.count), ["computed settable"])
        XCTAssertEqual(kinds(\Sealed.readOnly), ["computed"])
        XCTAssertEqual(kinds(\Sealed.[3]), ["computed settable arguments"])
        XCTAssertEqual(kinds(\Sealed.["x", 2, [1, 2, 3]]), ["computed arguments"])
        XCTAssertEqual(kinds(\Sealed.values[0]), ["stored", "computed settable arguments"])
        XCTAssertEqual(kinds(\Sealed.values.count), ["stored", "computed"])
        XCTAssertEqual(kinds(\Sealed.next?.count), ["computed settable", "optional", "computed settable", "optional"])
        XCTAssertEqual(kinds(\Sealed.next!.plain), ["computed settable", "optional", "stored"])
        XCTAssertEqual(kinds((\Sealed.values).appending(path: \[Int].[0])), ["stored", "computed settable arguments"])
    }

    func testIdentitiesAreThePropertysWhateverTheRoot() {
        let fromBase = KeyPathStorage.components(of: \KVOObjectBase.id)?.compactMap(\.identity)
        let fromSubclass = KeyPathStorage.components(of: \Student.id)?.compactMap(\.identity)
        XCTAssertNotNil(fromBase)
        XCTAssertEqual(fromBase, fromSubclass)
        XCTAssertNotEqual(fromBase, KeyPathStorage.components(of: \Student.school)?.compactMap(\.identity))
    }
}
