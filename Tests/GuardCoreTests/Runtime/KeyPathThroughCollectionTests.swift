import Foundation
import GuardCore
import XCTest

/// Observing a key path through an array or a set, or with a collection operator, is refused up front. Foundation's
/// collections cannot be observed: `NSArray`'s and `NSSet`'s `addObserver(_:forKeyPath:options:context:)` raise
/// "[<__NSArrayM 0x…> addObserver:forKeyPath:options:context:] is not supported. Key path: name" when the observance of
/// `items.name` reaches the array (and so does `items.@count`). The guard answers `.invalid` with a diagnostic.
final class KeyPathThroughCollectionTests: XCTestCase {
    func testObservingThroughADeclaredCollectionIsMisuseAndRegistersNothing() throws {
        let library = Library()
        library.books = [Book("A", pages: 1)]
        let recorder = Recorder()
        let misuses = recordingMisuse {
            library.addObserver(recorder, forKeyPath: "books.title", options: [.initial, .new])
            library.addObserver(recorder, forKeyPath: "spare.title", options: [.new])
            library.addObserver(recorder, forKeyPath: "books.@count", options: [.new])
            library.addObserver(recorder, forKeyPath: "branch.books.pages", options: [.new])
        }
        XCTAssertEqual(misuses.map(\.kind), Array(repeating: .keyPathThroughCollection, count: 4))
        let first = try XCTUnwrap(misuses.first)
        XCTAssertEqual(first.exceptionName, "NSInvalidArgumentException")
        XCTAssertTrue(
            first.message.hasPrefix(
                "[<Array<Book>> addObserver:forKeyPath:options:context:] is not supported. Key path: title ("),
            first.message)
        XCTAssertTrue(misuses[2].message.contains("Key path: @count"), misuses[2].message)
        XCTAssertEqual(library.observationCount, 0)
        XCTAssertEqual(recorder.count, 0, "no initial notification either")
        assertNoMisuse {
            library.books.append(Book("B", pages: 2))
            library.spare = []
        }
        XCTAssertEqual(recorder.count, 0)
    }

    /// A computed key whose value is an array now is refused as well (the value tells); one that becomes an array
    /// later is reported when the chain is re-wired to it, as Foundation raises when its re-wiring asks the array to
    /// observe.
    func testACollectionHeldByAComputedKeyIsFoundNowOrWhenItArrives() {
        let library = Library()
        let recorder = Recorder()
        library.setShelf([Book("A", pages: 1)])
        let refused = recordingMisuse { library.addObserver(recorder, forKeyPath: "shelf.title") }
        XCTAssertEqual(refused.map(\.kind), [.keyPathThroughCollection])
        XCTAssertEqual(library.observationCount, 0)

        library.setShelf(nil)
        assertNoMisuse { library.addObserver(recorder, forKeyPath: "shelf.title", options: [.new]) }
        let arrived = recordingMisuse { library.setShelf([Book("B", pages: 2)]) }
        XCTAssertEqual(arrived.map(\.kind), [.keyPathThroughCollection])
        library.removeObserver(recorder, forKeyPath: "shelf.title")
    }

    /// A key declared to depend on a key path through a collection cannot be observed either (Foundation observes the
    /// dependency when the key is observed, and the array refuses).
    func testADependencyThroughACollectionIsRefused() throws {
        let library = Library()
        let misuses = recordingMisuse { library.addObserver(Recorder(), forKeyPath: "titles") }
        XCTAssertEqual(misuses.map(\.kind), [.keyPathThroughCollection])
        XCTAssertTrue(
            try XCTUnwrap(misuses.first).message.contains("which depends on the key path \"books.title\""),
            misuses.first?.message ?? "")
        XCTAssertEqual(library.observationCount, 0)
    }

    func testTheGuardAnswersInvalidWithADiagnosticAndNoMisuse() {
        let library = Library()
        library.books = [Book("A", pages: 1)]
        let observer = GuardTestObserver()
        let (sink, controller) = makeController(for: observer)
        let log = HandlerLog()
        assertNoMisuse {
            for keyPath in ["books.title", "books.@count", "spare.title", "titles", "books.@sum.pages"] {
                XCTAssertEqual(
                    controller.observe(library, keyPath: keyPath, options: [.initial, .new], handler: log.recording("x")),
                    .invalid(.unobservableKeyPath), keyPath)
            }
            library.setShelf([Book("B", pages: 2)])
            XCTAssertEqual(
                controller.observe(library, keyPath: "shelf.title", handler: log.recording("x")),
                .invalid(.unobservableKeyPath))
        }
        XCTAssertEqual(sink.count(of: .invalidArgument), 6)
        XCTAssertEqual(sink.events.map(\.invalidArgument), Array(repeating: .unobservableKeyPath, count: 6))
        XCTAssertEqual(log.count, 0)
        XCTAssertEqual(controller.registrationCount, 0)
        XCTAssertEqual(library.observationCount, 0)
    }

    /// Observing the collection itself stays fine, and reading the refused key path gives what Foundation gives.
    func testTheCollectionItselfIsObservableAndTheKeyPathReadable() {
        let library = Library()
        let recorder = Recorder()
        assertNoMisuse {
            library.addObserver(recorder, forKeyPath: "books", options: [.new])
            library.books = [Book("A", pages: 1), Book("B", pages: 2)]
            XCTAssertEqual(library.value(forKeyPath: "books.title") as? [String], ["A", "B"])
            XCTAssertEqual(library.value(forKey: "titles") as? [String], ["A", "B"])
        }
        XCTAssertEqual(recorder.count, 1)
        library.removeObserver(recorder, forKeyPath: "books")
    }
}
