// Typed values of optional properties through `ObservedChange` and `values(of:)`.
import Foundation
@testable import GuardCore
import XCTest

final class TypedValueEdgeCaseTests: XCTestCase {
    /// An optional property observed through a Swift key path: nil → "a" → nil gives typed old/new values that
    /// tell nil apart from absent (`.some(nil)` vs `nil`).
    func testOptionalTypedOldAndNew() {
        let person = Person()
        let observer = EdgeObserverBox()
        let notes = TestBox<[String]>([])
        let controller = ObservationController(observer: observer)
        controller.observe(person, \.nickname, options: [.initial, .old, .new]) { _, _, change in
            func show(_ value: String??) -> String {
                switch value {
                case .none: return "absent"
                case .some(.none): return "nil"
                case .some(.some(let text)): return text
                }
            }
            notes.set(notes.get() + ["\(show(change.oldValue))->\(show(change.newValue))"])
        }
        person.nickname = "a"
        person.nickname = nil
        XCTAssertEqual(notes.get(), ["absent->nil", "nil->a", "a->nil"])
    }

    /// `values(of:)` over an optional property yields nil values too.
    func testValuesOfOptionalYieldNil() async {
        let person = Person()
        person.nickname = "x"
        var iterator = person.values(of: \.nickname, bufferingNewest: 8).makeAsyncIterator()
        person.nickname = nil
        person.nickname = "y"
        var seen: [String] = []
        for _ in 0..<3 {
            let value = await iterator.next()
            switch value {
            case .none: seen.append("end")
            case .some(.none): seen.append("nil")
            case .some(.some(let text)): seen.append(text)
            }
        }
        XCTAssertEqual(seen, ["x", "nil", "y"])
    }
}
