import Foundation
import GuardCore
import XCTest

/// A key path declared to affect an observed key is followed like any dotted key path, so it is bounded like one:
/// one longer than 128 components is refused (the misuse `keyPathTooLong` for an application's registration, a
/// refused `.invalid` for the guard's, nothing registered), and chains of dependencies that only turn out deep at run
/// time are followed at most 128 steps deep per thread (a relay or a forwarder is a step). The deepest allowed cases
/// run on a 512 KB thread.
final class DependencyDepthTests: XCTestCase {
    private static let limit = 128

    /// `next.next.….leaf` with `components` components in all.
    fileprivate static func path(components: Int) -> String {
        (Array(repeating: "next", count: components - 1) + ["leaf"]).joined(separator: ".")
    }

    /// A node whose `summary` depends on `next.….leaf` of 128 components (the longest allowed).
    final class DependsOnLongestAllowedPath: KVOObject, @unchecked Sendable {
        @Observed var next: DependsOnLongestAllowedPath?
        @Observed var leaf = 0
        static let longPath = DependencyDepthTests.path(components: DependencyDepthTests.limit)
        override class func keyPathsForValuesAffectingValue(forKey key: String) -> Set<String> {
            key == "summary" ? [longPath] : []
        }
        override func value(forKey key: String) -> Any? {
            key == "summary" ? leaf : super.value(forKey: key)
        }
    }

    /// The same with one component more.
    final class DependsOnOverlongPath: KVOObject, @unchecked Sendable {
        @Observed var next: DependsOnOverlongPath?
        @Observed var leaf = 0
        override class func keyPathsForValuesAffectingValue(forKey key: String) -> Set<String> {
            key == "summary" ? ["leaf", DependencyDepthTests.path(components: DependencyDepthTests.limit + 1)] : []
        }
        override func value(forKey key: String) -> Any? {
            key == "summary" ? leaf : super.value(forKey: key)
        }
    }

    /// The outside tester's case: 20,000 components.
    final class DependsOnVeryLongPath: KVOObject, @unchecked Sendable {
        @Observed var next: DependsOnVeryLongPath?
        @Observed var leaf = 0
        static let longPath = DependencyDepthTests.path(components: 20_000)
        override class func keyPathsForValuesAffectingValue(forKey key: String) -> Set<String> {
            key == "summary" ? [longPath] : []
        }
        override func value(forKey key: String) -> Any? {
            key == "summary" ? leaf : super.value(forKey: key)
        }
    }

    /// A list whose `total` depends on the next node's `total`: each node is one step deeper.
    final class ListNode: KVOObject, @unchecked Sendable {
        @Observed var next: ListNode?
        @Observed var value = 0
        override class func keyPathsForValuesAffectingValue(forKey key: String) -> Set<String> {
            key == "total" ? ["value", "next.total"] : []
        }
        override func value(forKey key: String) -> Any? {
            key == "total" ? value : super.value(forKey: key)
        }
    }

    private func list(of count: Int) -> [ListNode] {
        let nodes = (0..<count).map { _ in ListNode() }
        for (node, next) in zip(nodes, nodes.dropFirst()) { node.next = next }
        return nodes
    }

    func testTheLongestAllowedDependencyIsFollowedOnASmallStack() {
        let node = DependsOnLongestAllowedPath()
        node.next = node
        let observer = Recorder()
        let owner = Person()
        let sink = CountingSink()
        let controller = ObservationController(observer: owner, diagnosticSink: sink)
        let guarded = LockedBox<[Int?]>([])
        let misuses = LockedBox<[KVOMisuse.Kind]>([])
        runOnSmallStack(waitingUpTo: 120) {
            misuses.value = recordingMisuse {
                node.addObserver(observer, forKeyPath: "summary", options: [.new])
                XCTAssertEqual(
                    controller.observe(node, keyPath: "summary", options: [.new]) { _, _, change in
                        guarded.mutate { $0.append(change.newValue(as: Int.self)) }
                    }, .registered)
                node.leaf = 5
                node.removeObserver(observer, forKeyPath: "summary")
                XCTAssertEqual(controller.unobserve(node, keyPath: "summary"), .removed)
                node.leaf = 6
            }.map(\.kind)
        }
        XCTAssertEqual(misuses.value, [])
        XCTAssertEqual(observer.notes, [Note("summary", new: shown(5))])
        XCTAssertEqual(guarded.value, [5])
        XCTAssertEqual(sink.total, 0)
        node.next = nil
    }

    func testADependencyOneComponentTooLongIsRefused() {
        let node = DependsOnOverlongPath()
        node.next = node
        let observer = Recorder()
        let misuses = recordingMisuse {
            node.addObserver(observer, forKeyPath: "summary")
            node.leaf = 1
            node.removeObserver(observer, forKeyPath: "summary")
        }
        XCTAssertEqual(misuses.map(\.kind), [.keyPathTooLong, .notRegistered], "nothing was registered")
        XCTAssertEqual(misuses.first?.keyPath, "summary")
        XCTAssertTrue(
            misuses.first?.message.contains("depends on the key path \"next.next.next.next.next.next.next.next.… (129 components)\"")
                ?? false, misuses.first?.message ?? "no misuse")
        XCTAssertEqual(observer.count, 0)
        // Other keys of the class are unaffected.
        assertNoMisuse {
            node.addObserver(observer, forKeyPath: "leaf")
            node.leaf = 2
            node.removeObserver(observer, forKeyPath: "leaf")
        }
        XCTAssertEqual(observer.count, 1)
        node.next = nil
    }

    func testTheGuardRefusesAKeyWithAVeryLongDependency() {
        let node = DependsOnVeryLongPath()
        node.next = node
        let owner = Person()
        let sink = CountingSink()
        let controller = ObservationController(observer: owner, diagnosticSink: sink)
        let misuses = recordingMisuse {
            XCTAssertEqual(controller.observe(node, keyPath: "summary") { _, _, _ in }, .invalid(.keyPathTooLong))
            node.leaf = 3
        }
        XCTAssertEqual(misuses.map(\.kind), [], "the guard lets no misuse reach the runtime")
        XCTAssertEqual(sink.events.map(\.kind), [.invalidArgument])
        XCTAssertEqual(controller.registrationCount, 0)
        let raw = recordingMisuse { node.addObserver(Recorder(), forKeyPath: "summary") }
        XCTAssertEqual(raw.map(\.kind), [.keyPathTooLong])
        XCTAssertLessThan(raw.first?.message.utf8.count ?? .max, 1_000, "the message abbreviates the key path")
        node.next = nil
    }

    func testAnObservedKeyPathLongerThanTheLimitIsRefusedByTheRuntime() {
        let node = DependsOnLongestAllowedPath()
        node.next = node
        let observer = Recorder()
        let misuses = recordingMisuse {
            node.addObserver(observer, forKeyPath: DependencyDepthTests.path(components: Self.limit + 1))
            node.addObserver(observer, forKeyPath: DependencyDepthTests.path(components: 20_000))
        }
        XCTAssertEqual(misuses.map(\.kind), [.keyPathTooLong, .keyPathTooLong])
        XCTAssertTrue(misuses.first?.message.contains("it has more than 128 components") ?? false)
        XCTAssertEqual(node.value(forKeyPath: DependencyDepthTests.path(components: 20_000)) as? Int, 0,
            "reading a key path of any length takes constant stack")
        node.next = nil
    }

    func testAChainOfDependenciesAcrossObjectsStopsAtTheLimitOnASmallStack() {
        let nodes = list(of: 300)
        let head = nodes[0]
        let observer = Recorder()
        let misuses = LockedBox<[KVOMisuse.Kind]>([])
        runOnSmallStack(waitingUpTo: 120) {
            misuses.value = recordingMisuse {
                head.addObserver(observer, forKeyPath: "total")
                nodes[0].value = 1
                nodes[30].value = 1
                nodes[64].value = 1
                nodes[65].value = 1
                nodes[299].value = 1
                head.removeObserver(observer, forKeyPath: "total")
                nodes[1].value = 2
            }.map(\.kind)
        }
        XCTAssertEqual(misuses.value, [.keyPathTooLong], "reported once, where the chain was cut")
        // Each node further is two steps (its relay, then the forwarder to the next node): node 64 is 128 steps from
        // the head, the limit.
        XCTAssertEqual(observer.count, 3, "nodes 0, 30 and 64 are within 128 steps of the head; 65 and 299 are not")
    }

    func testTheGuardFollowsAChainOfDependenciesToTheLimitWithoutMisuse() {
        let nodes = list(of: 300)
        let owner = Person()
        let controller = ObservationController(observer: owner, diagnosticSink: CountingSink())
        let calls = LockedBox(0)
        let misuses = LockedBox<[KVOMisuse.Kind]>([])
        runOnSmallStack(waitingUpTo: 120) {
            misuses.value = recordingMisuse {
                XCTAssertEqual(
                    controller.observe(nodes[0], keyPath: "total") { _, _, _ in calls.mutate { $0 += 1 } }, .registered)
                nodes[64].value = 1
                nodes[65].value = 1
                nodes[250].value = 1
                _ = controller.unobserveAll()
            }.map(\.kind)
        }
        XCTAssertEqual(misuses.value, [])
        XCTAssertEqual(calls.value, 1)
    }
}
