// Dependent keys that loop back or go through a nil middle object.
import Foundation
@testable import GuardCore
import XCTest

final class EdgeHolder: KVOObject, @unchecked Sendable {
    @Observed var account: Account? = nil
    @Observed var a = 0
    @Observed var b = 0
    var summary: Int { account?.balance ?? -1 }

    override class func keyPathsForValuesAffectingValue(forKey key: String) -> Set<String> {
        switch key {
        case "summary": return ["account.balance"]
        case "a": return ["b"]
        case "b": return ["a"]
        default: return []
        }
    }

    override func value(forKey key: String) -> Any? {
        key == "summary" ? summary : super.value(forKey: key)
    }
}

final class DependentKeyEdgeCaseTests: XCTestCase {

    /// A key that depends on a dotted key path through a nil intermediate: setting the intermediate notifies the
    /// dependent key once, then a change of the leaf once .
    func testDependencyOnDottedPathThroughNil() {
        let holder = EdgeHolder()
        let observer = EdgeObserverBox()
        let notes = TestBox<[String]>([])
        let misuses = recordingMisuse {
            let controller = ObservationController(observer: observer)
            controller.observe(holder, keyPath: "summary", options: [.old, .new]) { _, _, change in
                notes.set(notes.get() + ["\(change.oldValue(as: Int.self) ?? -9)->\(change.newValue(as: Int.self) ?? -9)"])
            }
            let account = Account()
            account.balance = 5
            holder.account = account
            account.balance = 6
            holder.account = nil
            account.balance = 7
            controller.unobserveAll()
        }
        XCTAssertEqual(misuses, [])
        XCTAssertEqual(notes.get(), ["-1->5", "5->6", "6->-1"])
    }

    /// Mutual dependency a ← b, b ← a: a set of either notifies each observed key once .
    func testMutualDependency() {
        let holder = EdgeHolder()
        let observer = EdgeObserverBox()
        let notes = TestBox<[String]>([])
        let controller = ObservationController(observer: observer)
        controller.observe(holder, keyPaths: ["a", "b"], options: [.new]) { _, _, change in
            notes.set(notes.get() + [change.keyPath])
        }
        holder.a = 1
        holder.b = 2
        XCTAssertEqual(notes.get().sorted(), ["a", "a", "b", "b"])
    }

}

final class EdgeObserverBox: @unchecked Sendable {}
