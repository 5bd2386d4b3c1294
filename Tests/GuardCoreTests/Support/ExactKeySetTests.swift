import XCTest

@testable import GuardCore

/// `ExactKeySet` (each removal history entry's removed key paths): a short array up to its limit, hashed past it, and
/// a set of keys told apart by their bytes either way.
final class ExactKeySetTests: XCTestCase {
    private let composed = "caf\u{E9}"  // é as one scalar
    private let decomposed = "cafe\u{301}"  // e and a combining accent: the same `String` to `==`, another key

    func testUpToTheLimitTheKeysStayInTheArray() {
        var set = ExactKeySet()
        for index in 0..<ExactKeySet.linearLimit {
            XCTAssertTrue(set.insert("key\(index)"))
            XCTAssertFalse(set.isHashed, "hashed at \(index + 1) keys")
        }
        XCTAssertEqual(set.count, ExactKeySet.linearLimit)
        for index in 0..<ExactKeySet.linearLimit { XCTAssertTrue(set.contains("key\(index)")) }
        XCTAssertFalse(set.contains("key\(ExactKeySet.linearLimit)"))
    }

    func testOneKeyPastTheLimitHashesThemAllAndKeepsEveryKey() {
        var set = ExactKeySet()
        for index in 0...ExactKeySet.linearLimit { set.insert("key\(index)") }
        XCTAssertTrue(set.isHashed)
        XCTAssertEqual(set.count, ExactKeySet.linearLimit + 1)
        for index in 0...ExactKeySet.linearLimit { XCTAssertTrue(set.contains("key\(index)"), "key\(index)") }
        XCTAssertFalse(set.contains("key\(ExactKeySet.linearLimit + 1)"))
        for index in 0..<1_000 { set.insert("more\(index)") }
        XCTAssertTrue(set.isHashed)
        XCTAssertEqual(set.count, ExactKeySet.linearLimit + 1 + 1_000)
        XCTAssertTrue((0..<1_000).allSatisfy { set.contains("more\($0)") })
        XCTAssertFalse(set.contains("more1000"))
    }

    func testAKeyAlreadyThereIsNotAddedAgainBeforeOrAfterHashing() {
        var set = ExactKeySet()
        XCTAssertTrue(set.insert("a"))
        XCTAssertFalse(set.insert("a"))
        XCTAssertEqual(set.count, 1)
        for index in 0..<ExactKeySet.linearLimit { set.insert("key\(index)") }
        XCTAssertTrue(set.isHashed)
        XCTAssertFalse(set.insert("a"))
        XCTAssertFalse(set.insert("key0"))
        XCTAssertEqual(set.count, ExactKeySet.linearLimit + 1)
    }

    /// Two spellings of one string are two keys, in the array and hashed alike.
    func testTwoSpellingsOfOneStringAreTwoKeys() {
        XCTAssertEqual(composed, decomposed, "the test needs two spellings `==` calls equal")
        var small = ExactKeySet()
        small.insert(composed)
        XCTAssertTrue(small.contains(composed))
        XCTAssertFalse(small.contains(decomposed))
        XCTAssertTrue(small.insert(decomposed))
        XCTAssertEqual(small.count, 2)

        var hashed = ExactKeySet()
        for index in 0..<ExactKeySet.linearLimit { hashed.insert("key\(index)") }
        hashed.insert(composed)
        XCTAssertTrue(hashed.isHashed)
        XCTAssertTrue(hashed.contains(composed))
        XCTAssertFalse(hashed.contains(decomposed))
        XCTAssertTrue(hashed.insert(decomposed))
        XCTAssertTrue(hashed.contains(decomposed))
        XCTAssertEqual(hashed.count, ExactKeySet.linearLimit + 2)
    }
}
