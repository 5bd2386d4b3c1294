@testable import GuardCore
import XCTest

/// Keys are equal only with the same UTF-8 bytes, whatever Swift's canonical equivalence says.
final class ExactKeyTests: XCTestCase {
    func testCanonicallyEquivalentSpellingsAreDifferentKeys() {
        let composed = "caf\u{E9}"
        let decomposed = "cafe\u{301}"
        // Same length in bytes, combining marks in the other order.
        let marksOneWay = "a\u{301}\u{316}"
        let marksTheOtherWay = "a\u{316}\u{301}"
        XCTAssertEqual(composed, decomposed, "Swift's `==` calls them equal")
        XCTAssertEqual(marksOneWay, marksTheOtherWay)
        XCTAssertFalse(composed.isSameKey(as: decomposed))
        XCTAssertFalse(marksOneWay.isSameKey(as: marksTheOtherWay))
        XCTAssertNotEqual(ExactKey(composed), ExactKey(decomposed))
        XCTAssertEqual(Set([ExactKey(marksOneWay), ExactKey(marksTheOtherWay)]).count, 2)
    }

    func testTheSameBytesAreTheSameKeyInAnyRepresentation() {
        let literal = "account.balance.and.more"
        let built = ["account", "balance", "and", "more"].joined(separator: ".")
        XCTAssertTrue(literal.isSameKey(as: built), "large strings in different storage")
        XCTAssertTrue("value".isSameKey(as: String("valu") + "e"), "small strings")
        XCTAssertTrue("".isSameKey(as: String()))
        XCTAssertFalse("value".isSameKey(as: "values"))
        XCTAssertFalse("value".isSameKey(as: "Value"))
        XCTAssertEqual(ExactKey(literal), ExactKey(built))
        XCTAssertEqual(ExactKey(literal).hashValue, ExactKey(built).hashValue)
    }
}
