import Foundation
import GuardCore
import XCTest

/// Naming a typed key path never evaluates a subscript or a read-only computed step: such a key path has no name, and
/// the API that needs one refuses it (the misuse `unknownKey`, the guard's `.invalid(.unobservableKeyPath)`).
final class TypedKeyPathSubscriptTests: XCTestCase {
    /// Subscripts and computed properties whose value types match `@Observed` properties of the class, so only the key
    /// path's storage tells them apart from those properties. Every getter counts its reads.
    final class Indexed: KVOObject, @unchecked Sendable {
        @Observed var name = ""
        @Observed var shelf = Shelf()
        var storage: [String] = []
        private(set) var reads = 0
        subscript(index: Int) -> String {
            get {
                reads += 1
                return storage.indices.contains(index) ? storage[index] : ""
            }
            set { if storage.indices.contains(index) { storage[index] = newValue } }
        }
        subscript(label: String, index: Int) -> Shelf {
            get {
                reads += 1
                return shelf
            }
            set { shelf = newValue }
        }
        var shelfAlias: Shelf {
            reads += 1
            return shelf
        }
    }

    final class Shelf: KVOObject, @unchecked Sendable {
        @Observed var title = ""
        private(set) var reads = 0
        subscript(index: Int) -> String {
            get {
                reads += 1
                return title
            }
            set { title = newValue }
        }
    }

    func testASettableSubscriptHasNoNameAndIsNeverRead() {
        let model = Indexed()
        XCTAssertNil(model.keyPathString(for: \.[5]))
        XCTAssertNil(model.keyPathString(for: \.["a", 1]))
        XCTAssertNil(model.keyPathString(for: \.["a", 1].title))
        XCTAssertNil(model.keyPathString(for: \.shelf[2]), "a subscript after an @Observed property")
        XCTAssertEqual(model.reads, 0)
        XCTAssertEqual(model.shelf.reads, 0)
        XCTAssertEqual(model.keyPathString(for: \.name), "name")
        XCTAssertEqual(model.keyPathString(for: \.shelf.title), "shelf.title")
    }

    func testAReadOnlyComputedStepAlongAWritableKeyPathIsNeverRead() {
        let model = Indexed()
        // `shelfAlias` is read-only, but the key path is reference-writable through `title`.
        XCTAssertNil(model.keyPathString(for: \.shelfAlias.title))
        XCTAssertEqual(model.reads, 0)
    }

    func testObservingThroughASubscriptIsRefusedWithoutReadingIt() {
        let model = Indexed()
        let observer = Recorder()
        let misuses = recordingMisuse {
            model.addObserver(observer, forKeyPath: \.[5])
            model.removeObserver(observer, forKeyPath: \.[5])
        }
        XCTAssertEqual(misuses.map(\.kind), [.unknownKey, .unknownKey])
        let owner = Person()
        let sink = CountingSink()
        let controller = ObservationController(observer: owner, diagnosticSink: sink)
        let guardMisuses = recordingMisuse {
            XCTAssertEqual(controller.observe(model, \.[7]) { _, _, _ in }, .invalid(.unobservableKeyPath))
        }
        XCTAssertEqual(guardMisuses.map(\.kind), [], "the guard lets no misuse reach the runtime")
        XCTAssertEqual(sink.count(of: .invalidArgument), 1)
        XCTAssertEqual(model.reads, 0)
    }
}
