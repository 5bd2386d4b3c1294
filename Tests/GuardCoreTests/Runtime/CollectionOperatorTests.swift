import Foundation
import GuardCore
import XCTest

/// Key-value coding reads through collections and with collection operators, as the Key-Value Coding Programming
/// Guide, "Using Collection Operators", describes them for `valueForKeyPath:`.
final class CollectionOperatorTests: XCTestCase {
    private let ann = Author("Ann")
    private let bob = Author("Bob")

    private func makeLibrary() -> Library {
        let library = Library()
        library.books = [
            Book("Alpha", pages: 100, price: 10.5, author: ann, published: Date(timeIntervalSince1970: 30)),
            Book("Beta", pages: 300, price: nil, author: nil, published: Date(timeIntervalSince1970: 10)),
            Book("Alpha", pages: 200, price: 2.0, author: bob, published: Date(timeIntervalSince1970: 20)),
        ]
        return library
    }

    /// "@count: returns the number of objects in the left key path collection as an NSNumber"; the right key path,
    /// if any, is ignored.
    func testCount() {
        let library = makeLibrary()
        assertNoMisuse {
            XCTAssertEqual(library.value(forKeyPath: "books.@count") as? Int, 3)
            XCTAssertEqual(library.value(forKeyPath: "books.@count") as? NSNumber, 3)
            XCTAssertEqual(library.value(forKeyPath: "books.@count.pages") as? Int, 3)
            XCTAssertEqual(library.value(forKeyPath: "numbers.@count") as? Int, 0)
            XCTAssertEqual(library.value(forKeyPath: "tags.@count") as? Int, 0)
        }
    }

    /// "@sum ... converts it to a double (substituting 0 for nil values), and computes the sum of these. It then
    /// returns the result stored in an NSNumber instance." An empty collection sums to 0.
    func testSum() {
        let library = makeLibrary()
        library.numbers = [1, 2, 3]
        library.amounts = [Decimal(string: "0.1")!, Decimal(string: "0.2")!]
        assertNoMisuse {
            XCTAssertEqual(library.value(forKeyPath: "books.@sum.pages") as? Int, 600)
            XCTAssertEqual(library.value(forKeyPath: "books.@sum.pages") as? Double, 600.0)
            XCTAssertEqual(library.value(forKeyPath: "books.@sum.price") as? Double, 12.5, "nil counts as 0")
            XCTAssertEqual(library.value(forKeyPath: "numbers.@sum.self") as? Int, 6)
            XCTAssertEqual(
                (library.value(forKeyPath: "amounts.@sum.self") as? NSDecimalNumber)?.decimalValue,
                Decimal(string: "0.3"), "decimals sum exactly, as Foundation's NSDecimalNumber sum does")
            XCTAssertEqual(Library().value(forKeyPath: "books.@sum.pages") as? Int, 0)
        }
    }

    /// "@avg ... converts it to a double (substituting 0 for nil values), and computes the arithmetic average of
    /// these": the sum over the number of elements. Foundation's NSArray answers nil for an empty array (there is no
    /// average of nothing), unlike @sum.
    func testAverage() {
        let library = makeLibrary()
        assertNoMisuse {
            XCTAssertEqual(library.value(forKeyPath: "books.@avg.pages") as? Int, 200)
            XCTAssertEqual(library.value(forKeyPath: "books.@avg.price") as? Double, 12.5 / 3, "nil counts as 0")
            XCTAssertNil(Library().value(forKeyPath: "books.@avg.pages"))
        }
    }

    /// "@max ... searches the collection entries named by the right key path and returns the largest one ...
    /// ignores nil values" (compared with `compare:`: numbers, strings, dates). Nothing to compare gives nil.
    func testMaximumAndMinimum() {
        let library = makeLibrary()
        assertNoMisuse {
            XCTAssertEqual(library.value(forKeyPath: "books.@max.pages") as? Int, 300)
            XCTAssertEqual(library.value(forKeyPath: "books.@min.pages") as? Int, 100)
            XCTAssertEqual(library.value(forKeyPath: "books.@max.title") as? String, "Beta")
            XCTAssertEqual(library.value(forKeyPath: "books.@min.price") as? Double, 2.0, "nil skipped")
            XCTAssertEqual(library.value(forKeyPath: "books.@max.published") as? Date, Date(timeIntervalSince1970: 30))
            XCTAssertEqual(library.value(forKeyPath: "books.@min.author.name") as? String, "Ann")
            XCTAssertNil(Library().value(forKeyPath: "books.@max.pages"))
        }
    }

    /// "@unionOfObjects ... returns an array containing all the objects ... does not remove duplicate objects";
    /// "@distinctUnionOfObjects ... removes duplicate objects". Nil values are left out, as Foundation leaves them.
    func testUnionsOfObjects() {
        let library = makeLibrary()
        assertNoMisuse {
            XCTAssertEqual(library.value(forKeyPath: "books.@unionOfObjects.title") as? [String], ["Alpha", "Beta", "Alpha"])
            XCTAssertEqual(library.value(forKeyPath: "books.@distinctUnionOfObjects.title") as? [String], ["Alpha", "Beta"])
            XCTAssertEqual(library.value(forKeyPath: "books.@unionOfObjects.author.name") as? [String], ["Ann", "Bob"])
            let authors = library.value(forKeyPath: "books.@distinctUnionOfObjects.author") as? [Author]
            XCTAssertEqual(authors?.count, 2)
        }
    }

    /// "@unionOfArrays ... returns an array containing the combined values of each array in the collection";
    /// "@distinctUnionOfArrays" and "@distinctUnionOfSets" remove duplicates.
    func testUnionsOfArraysAndSets() {
        let library = makeLibrary()
        library.shelves = [[1, 2], [2, 3]]
        assertNoMisuse {
            XCTAssertEqual(library.value(forKeyPath: "shelves.@unionOfArrays.self") as? [Int], [1, 2, 2, 3])
            XCTAssertEqual(library.value(forKeyPath: "shelves.@distinctUnionOfArrays.self") as? [Int], [1, 2, 3])
            XCTAssertEqual(library.value(forKeyPath: "shelves.@distinctUnionOfSets.self") as? [Int], [1, 2, 3])
        }
    }

    /// Foundation's `NSArray.valueForKey:` gives an array of each element's value (NSNull for a nil one), and
    /// `valueForKeyPath:` reads the rest from it: `books.author.name`.
    func testAKeyPathThroughACollectionMapsItsElements() throws {
        let library = makeLibrary()
        library.tags = ["b"]
        var names: Any?
        assertNoMisuse {
            XCTAssertEqual(library.value(forKeyPath: "books.title") as? [String], ["Alpha", "Beta", "Alpha"])
            XCTAssertEqual(library.value(forKeyPath: "books.pages") as? [Int], [100, 300, 200])
            names = library.value(forKeyPath: "books.author.name")
            XCTAssertEqual(library.value(forKeyPath: "tags.self") as? [String], ["b"])
            XCTAssertNil(library.value(forKeyPath: "spare.title"), "a nil collection reads nil")
            library.branch = library
            XCTAssertEqual(library.value(forKeyPath: "branch.books.@count") as? Int, 3)
        }
        let each = try XCTUnwrap(names as? [Any])
        XCTAssertEqual(each.count, 3, "a nil author keeps its place")
        XCTAssertEqual(each.map(GuardValue.of), ["Ann", .nilValue, "Bob"])
    }

    /// An unknown operator: Foundation raises "[<__NSArrayI 0x…> valueForKeyPath:]: this class does not implement the
    /// average operation." (`valueForUndefinedKey:` for one without a right key path).
    func testAnUnknownOperatorIsMisuseWithFoundationsWording() {
        let library = makeLibrary()
        var values: [Any?] = []
        let misuses = recordingMisuse {
            values.append(library.value(forKeyPath: "books.@average.pages"))
            values.append(library.value(forKeyPath: "books.@sum"))
        }
        XCTAssertEqual(values.compactMap { $0 }.count, 0)
        XCTAssertEqual(misuses.map(\.kind), [.unknownCollectionOperator, .unknownCollectionOperator])
        XCTAssertEqual(misuses.map(\.exceptionName), ["NSUnknownKeyException", "NSUnknownKeyException"])
        XCTAssertTrue(
            misuses[0].message.hasPrefix(
                "[<Array<Book>> valueForKeyPath:]: this class does not implement the average operation."),
            misuses[0].message)
        XCTAssertTrue(
            misuses[1].message.hasPrefix(
                "[<Array<Book>> valueForUndefinedKey:]: this class is not key value coding-compliant for the key sum."),
            misuses[1].message)
    }

    /// Collection operators nested in each other are followed 128 deep per thread and no deeper (the read beyond is
    /// the misuse `keyPathTooLong`), so no key path can overflow a thread's stack, even a 512 KB one.
    func testOperatorsNestedTooDeepAreRefusedBeforeTheStackOverflows() {
        let library = Library()
        library.numbers = [1]
        let keyPath = Array(repeating: "loop.@unionOfObjects", count: 5_000).joined(separator: ".") + ".numbers"
        let misuses = TestBox<[KVOMisuse]>([])
        runOnSmallStack(waitingUpTo: 60) {
            misuses.set(recordingMisuse { _ = library.value(forKeyPath: keyPath) })
        }
        XCTAssertEqual(misuses.get().map(\.kind), [.keyPathTooLong])
        XCTAssertTrue(misuses.get().first?.message.contains("nest more than 128 deep") ?? false)
        let shallow = Array(repeating: "loop.@unionOfObjects", count: 3).joined(separator: ".") + ".numbers.@count"
        assertNoMisuse {
            XCTAssertEqual(GuardValue.of(library.value(forKeyPath: shallow)), [[[1]]])
        }
    }

    /// Values an operator cannot work with (Foundation: an exception from the value that cannot answer
    /// `decimalValue` or `compare:`), and keys the elements do not have.
    func testValuesAnOperatorCannotUseAndUnknownElementKeysAreMisuse() {
        let library = makeLibrary()
        var values: [Any?] = []
        let misuses = recordingMisuse {
            values.append(library.value(forKeyPath: "books.@sum.title"))
            values.append(library.value(forKeyPath: "books.@unionOfArrays.title"))
            values.append(library.value(forKeyPath: "books.nope"))
        }
        XCTAssertEqual(misuses.map(\.kind), [.typeMismatch, .typeMismatch, .unknownKey, .unknownKey, .unknownKey])
        XCTAssertTrue(misuses[0].message.contains("@sum operation needs numbers"), misuses[0].message)
        XCTAssertEqual(values.count, 3)
        XCTAssertNil(values[0] ?? nil)
        XCTAssertNil(values[1] ?? nil)
    }
}
