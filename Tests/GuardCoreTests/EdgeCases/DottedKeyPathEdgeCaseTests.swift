// Dotted key paths through cycles and non-observable values, and key-value coding on odd key paths.
import Foundation
@testable import GuardCore
import XCTest

final class EdgeNode: KVOObject, @unchecked Sendable {
    @Observed var next: EdgeNode? = nil
    @Observed var v = 0
    @Observed var note = "text"
}

final class DottedKeyPathEdgeCaseTests: XCTestCase {
    /// A cyclic chain (node.next == node) observed through `next.next.next.v`: registering, changing `v` and `next`
    /// end, and each change is delivered once per registration .
    func testCyclicChain() {
        let node = EdgeNode()
        node.next = node
        let observer = EdgeObserverBox()
        let notes = TestBox<[Int]>([])
        let misuses = recordingMisuse {
            let controller = ObservationController(observer: observer)
            XCTAssertEqual(
                controller.observe(node, keyPath: "next.next.next.v", options: [.new]) { _, _, change in
                    notes.set(notes.get() + [change.newValue(as: Int.self) ?? -1])
                }, .registered)
            node.v = 1
            let other = EdgeNode()
            other.v = 5
            node.next = other  // chain: node.next = other, other.next = nil → nil
            other.next = node  // node.next.next = node, .next = other, .v = 5
            node.v = 2  // not on the chain any more? next.next.next = other → v is other's
            other.v = 6
            controller.unobserveAll()
            node.next = nil
            other.next = nil
        }
        XCTAssertEqual(misuses, [])
        // node.v=1 reaches through 3 hops (one notification); node.next=other → nil; other.next=node → 5;
        // node.v=2 → node is the 2nd hop only, not the leaf: nothing; other.v=6 → 6.
        XCTAssertEqual(notes.get(), [1, -1, 5, 6])
    }

    /// An intermediate that is not a KVOObject (a String): the guard answers invalid, never traps.
    func testIntermediateNotAKVOObject() {
        let node = EdgeNode()
        let observer = EdgeObserverBox()
        let sink = CountingSink()
        let misuses = recordingMisuse {
            let controller = ObservationController(observer: observer, diagnosticSink: sink)
            XCTAssertEqual(
                controller.observe(node, keyPath: "note.count") { _, _, _ in }, .invalid(.unobservableKeyPath))
        }
        XCTAssertEqual(misuses, [])
        XCTAssertEqual(sink.count(of: .invalidArgument), 1)
    }

    /// value(forKeyPath:) on odd spellings reports unknownKey misuses (report policy) and never traps.
    func testValueForOddKeyPaths() {
        let node = EdgeNode()
        node.next = EdgeNode()
        let paths = ["", ".", "..", "next.", ".next", "next..v", " v", "v ", "next. v", String(repeating: "next.", count: 50) + "v"]
        let misuses = recordingMisuse {
            for path in paths { _ = node.value(forKeyPath: path) }
        }
        XCTAssertEqual(Set(misuses.map(\.kind)), [.unknownKey])
    }

    /// The guard on odd key path spellings: invalid results, one diagnostic each, no misuse.
    func testGuardOnOddKeyPaths() {
        let node = EdgeNode()
        node.next = node
        let observer = EdgeObserverBox()
        let sink = CountingSink()
        let paths = ["", ".", "..", "next.", ".next", "next..v", " v", "v ", "next. v", "v\u{0}"]
        let misuses = recordingMisuse {
            let controller = ObservationController(observer: observer, diagnosticSink: sink)
            for path in paths {
                if case .registered = controller.observe(node, keyPath: path, handler: { _, _, _ in }) {
                    XCTFail("\(path.debugDescription) registered")
                }
                _ = controller.unobserve(node, keyPath: path)
            }
        }
        XCTAssertEqual(misuses, [])
        XCTAssertEqual(sink.total, paths.count * 2)
    }
}
