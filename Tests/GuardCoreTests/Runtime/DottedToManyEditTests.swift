import Foundation
import GuardCore
import XCTest

/// The ordered to-many helpers given a dotted key path (`\.shelf.books`) edit the array of the object at the end of the
/// chain and announce the edit there, for its last key, as Foundation's `mutableArrayValue(forKeyPath:)` does.
/// Observers of the last key get the kind and indexes; observers of the whole key path on the root get the same kind
/// and indexes relayed (as Foundation's nested observations forward the change dictionary they receive); a key
/// declared to depend on the dotted key path gets a setting.
final class DottedToManyEditTests: XCTestCase {
    final class Shelf: KVOObject, @unchecked Sendable {
        @Observed var books: [String] = []
    }

    final class Library: KVOObject, @unchecked Sendable {
        @Observed var shelf = Shelf()
        var bookCount: Int { shelf.books.count }

        override class func keyPathsForValuesAffectingValue(forKey key: String) -> Set<String> {
            key == "bookCount" ? ["shelf.books"] : super.keyPathsForValuesAffectingValue(forKey: key)
        }

        override func value(forKey key: String) -> Any? {
            key == "bookCount" ? bookCount : super.value(forKey: key)
        }
    }

    private var library: Library!
    private var shelfObserver: Recorder!
    private var libraryObserver: Recorder!

    override func setUp() {
        super.setUp()
        library = Library()
        library.shelf.books = ["a", "b", "c"]
        shelfObserver = Recorder()
        libraryObserver = Recorder()
    }

    /// Runs `body` with `shelfObserver` on the shelf's `books` and `libraryObserver` on the library's `shelf.books`,
    /// both with `options`, and asserts no misuse.
    private func whileObservingBoth(_ options: KeyValueObservingOptions, _ body: () -> Void) {
        let shelf = library.shelf
        assertNoMisuse {
            shelf.addObserver(shelfObserver, forKeyPath: "books", options: options)
            library.addObserver(libraryObserver, forKeyPath: "shelf.books", options: options)
            body()
            shelf.removeObserver(shelfObserver, forKeyPath: "books")
            library.removeObserver(libraryObserver, forKeyPath: "shelf.books")
        }
    }

    func testInsertionThroughADottedKeyPath() {
        whileObservingBoth([.old, .new, .prior]) {
            XCTAssertTrue(library.insert(["x", "y"], at: IndexSet([0, 4]), into: \.shelf.books))
        }
        XCTAssertEqual(library.shelf.books, ["x", "a", "b", "c", "y"])
        XCTAssertEqual(
            shelfObserver.notes,
            [.prior("books", .insertion, indexes: [0, 4]), Note("books", .insertion, new: shown(["x", "y"]), indexes: [0, 4])])
        XCTAssertEqual(
            libraryObserver.notes,
            [
                .prior("shelf.books", .insertion, indexes: [0, 4]),
                Note("shelf.books", .insertion, new: shown(["x", "y"]), indexes: [0, 4]),
            ])
        assertAllFrom(library, libraryObserver)
    }

    func testRemovalThroughADottedKeyPath() {
        whileObservingBoth([.old, .new]) {
            XCTAssertTrue(library.removeElements(at: IndexSet([0, 2]), from: \.shelf.books))
        }
        XCTAssertEqual(library.shelf.books, ["b"])
        XCTAssertEqual(shelfObserver.notes, [Note("books", .removal, old: shown(["a", "c"]), indexes: [0, 2])])
        XCTAssertEqual(libraryObserver.notes, [Note("shelf.books", .removal, old: shown(["a", "c"]), indexes: [0, 2])])
    }

    func testReplacementThroughADottedKeyPath() {
        whileObservingBoth([.old, .new]) {
            XCTAssertTrue(library.replaceElements(at: IndexSet([1]), with: ["B"], in: \.shelf.books))
        }
        XCTAssertEqual(library.shelf.books, ["a", "B", "c"])
        XCTAssertEqual(
            shelfObserver.notes, [Note("books", .replacement, old: shown(["b"]), new: shown(["B"]), indexes: [1])])
        XCTAssertEqual(
            libraryObserver.notes,
            [Note("shelf.books", .replacement, old: shown(["b"]), new: shown(["B"]), indexes: [1])])
    }

    func testTheEditGoesToTheShelfTheChainHoldsNow() {
        let oldShelf = library.shelf
        let oldShelfObserver = Recorder()
        assertNoMisuse {
            oldShelf.addObserver(oldShelfObserver, forKeyPath: "books")
            library.addObserver(libraryObserver, forKeyPath: "shelf.books", options: [.new])
            library.shelf = Shelf()
            XCTAssertTrue(library.insert(["z"], at: IndexSet([0]), into: \.shelf.books))
            oldShelf.removeObserver(oldShelfObserver, forKeyPath: "books")
            library.removeObserver(libraryObserver, forKeyPath: "shelf.books")
        }
        XCTAssertEqual(oldShelfObserver.count, 0)
        XCTAssertEqual(library.shelf.books, ["z"])
        XCTAssertEqual(
            libraryObserver.notes,
            [Note("shelf.books", new: shown([String]())), Note("shelf.books", .insertion, new: shown(["z"]), indexes: [0])])
    }

    func testAKeyDependingOnTheDottedKeyPathSeesASetting() {
        let observer = Recorder()
        assertNoMisuse {
            library.addObserver(observer, forKeyPath: "bookCount", options: [.old, .new])
            XCTAssertTrue(library.insert(["x"], at: IndexSet([1]), into: \.shelf.books))
            library.removeObserver(observer, forKeyPath: "bookCount")
        }
        XCTAssertEqual(observer.notes, [Note("bookCount", .setting, old: shown(3), new: shown(4))])
    }

    func testTheGuardHearsTheEditWithItsIndexes() {
        let owner = Person()
        let controller = ObservationController(observer: owner, diagnosticSink: CountingSink())
        let kinds = LockedBox<[String]>([])
        assertNoMisuse {
            XCTAssertEqual(
                controller.observe(library, keyPath: "shelf.books", options: [.new]) { _, _, change in
                    kinds.mutate { $0.append("\(change.kind) \(change.indexes.map(Array.init) ?? [])") }
                }, .registered)
            XCTAssertTrue(library.removeElements(at: IndexSet([1]), from: \.shelf.books))
            _ = controller.unobserveAll()
        }
        XCTAssertEqual(kinds.value, ["removal [1]"])
    }

    func testIndexesThatDoNotFitAreRefusedOnTheShelfWithNothingAnnounced() {
        var did = true
        let misuses = recordingMisuse {
            library.shelf.addObserver(shelfObserver, forKeyPath: "books", options: [.prior])
            library.addObserver(libraryObserver, forKeyPath: "shelf.books", options: [.prior])
            did = library.removeElements(at: IndexSet([3]), from: \.shelf.books)
            library.shelf.removeObserver(shelfObserver, forKeyPath: "books")
            library.removeObserver(libraryObserver, forKeyPath: "shelf.books")
        }
        XCTAssertFalse(did)
        XCTAssertEqual(misuses.map(\.kind), [.invalidIndexes])
        XCTAssertEqual(misuses.first?.keyPath, "books")
        XCTAssertEqual(misuses.first?.object, rendered(library.shelf))
        XCTAssertEqual(library.shelf.books, ["a", "b", "c"])
        XCTAssertEqual(shelfObserver.count + libraryObserver.count, 0)
    }
}
