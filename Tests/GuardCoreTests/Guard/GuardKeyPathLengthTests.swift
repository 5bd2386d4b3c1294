import Foundation
import GuardCore
import XCTest

/// A node whose `next` may point back at itself, so a dotted key path of any length has an object at every step.
private final class CyclicNode: KVOObject, @unchecked Sendable {
    @Observed var next: CyclicNode?
    @Observed var level = 0
}

/// The guard follows a dotted key path one level of recursion per component; it refuses key paths longer than 128
/// components (`keyPathTooLong`) and handles every shorter one within a 512 KB thread stack.
final class GuardKeyPathLengthTests: XCTestCase {
    private static let limit = 128

    /// `next.next.….level` with `components` components in all.
    private static func cyclicKeyPath(components: Int) -> String {
        (Array(repeating: "next", count: components - 1) + ["level"]).joined(separator: ".")
    }

    func testTheLongestAllowedKeyPathIsObservedNotifiedAndRemovedOnASmallStack() {
        let node = CyclicNode()
        node.next = node
        let keyPath = Self.cyclicKeyPath(components: Self.limit)
        let observer = GuardTestObserver()
        let (sink, controller) = makeController(for: observer)
        let values = LockedBox<[Int?]>([])
        let results = LockedBox<[String]>([])
        runOnSmallStack(waitingUpTo: 60) {
            let observed = controller.observe(node, keyPath: keyPath, options: [.initial, .new]) { _, _, change in
                values.value.append(change.newValue(as: Int.self))
            }
            node.level = 7
            let removed = controller.unobserve(node, keyPath: keyPath)
            node.level = 8
            results.value = ["\(observed)", "\(removed)"]
        }
        XCTAssertEqual(results.value, ["registered", "removed"])
        XCTAssertEqual(values.value, [0, 7], "the initial value, then the one change made while observed")
        XCTAssertEqual(sink.events, [])
        XCTAssertEqual(controller.registrationCount, 0)
        node.next = nil
    }

    func testAKeyPathOneComponentTooLongIsRefusedAndNeverRegistered() {
        let node = CyclicNode()
        node.next = node
        let keyPath = Self.cyclicKeyPath(components: Self.limit + 1)
        let observer = GuardTestObserver()
        let (sink, controller) = makeController(for: observer)
        let calls = LockedBox(0)
        let observed = controller.observe(node, keyPath: keyPath, options: [.initial, .new]) { _, _, _ in
            calls.value += 1
        }
        XCTAssertEqual(observed, .invalid(.keyPathTooLong))
        node.level = 1
        XCTAssertEqual(calls.value, 0, "no handler call: not even the initial one")
        XCTAssertEqual(controller.registrationCount, 0)
        XCTAssertFalse(controller.isObserving(node, keyPath: keyPath))
        XCTAssertEqual(controller.unobserve(node, keyPath: keyPath), .invalid(.keyPathTooLong))
        XCTAssertEqual(sink.events.map(\.kind), [.invalidArgument, .invalidArgument])
        XCTAssertEqual(sink.events.map(\.invalidArgument), [.keyPathTooLong, .keyPathTooLong])
        XCTAssertTrue(
            sink.events.first?.description.contains("invalid argument (key path has more than 128 components)") ?? false,
            sink.events.first?.description ?? "no event")
        node.next = nil
    }

    func testAHugeKeyPathIsRefusedOnASmallStackWithoutFollowingIt() {
        let node = CyclicNode()
        node.next = node
        // 200,000 components: following it would take far more than any thread's stack.
        let keyPath = Self.cyclicKeyPath(components: 200_000)
        let observer = GuardTestObserver()
        let (sink, controller) = makeController(for: observer)
        let results = LockedBox<[String]>([])
        runOnSmallStack(waitingUpTo: 60) {
            let observed = controller.observe(node, keyPath: keyPath) { _, _, _ in }
            let removed = controller.unobserve(node, keyPath: keyPath)
            results.value = ["\(observed)", "\(removed)"]
        }
        XCTAssertEqual(results.value, ["invalid(GuardCore.GuardDiagnostic.InvalidArgument.keyPathTooLong)",
            "invalid(GuardCore.GuardDiagnostic.InvalidArgument.keyPathTooLong)"])
        XCTAssertEqual(sink.events.map(\.invalidArgument), [.keyPathTooLong, .keyPathTooLong])
        node.next = nil
    }

    func testATooLongKeyPathTakesPrecedenceOverAnEmptyComponentAndShortOnesStayEmpty() {
        let node = CyclicNode()
        let observer = GuardTestObserver()
        let (_, controller) = makeController(for: observer)
        let tooLongAndEmpty = String(repeating: ".", count: Self.limit)
        XCTAssertEqual(controller.observe(node, keyPath: tooLongAndEmpty) { _, _, _ in }, .invalid(.keyPathTooLong))
        XCTAssertEqual(controller.unobserve(node, keyPath: tooLongAndEmpty), .invalid(.keyPathTooLong))
        let shortAndEmpty = String(repeating: ".", count: Self.limit - 1)
        XCTAssertEqual(controller.observe(node, keyPath: shortAndEmpty) { _, _, _ in }, .invalid(.emptyKeyPath))
        XCTAssertEqual(controller.unobserve(node, keyPath: shortAndEmpty), .invalid(.emptyKeyPath))
    }

    func testATokenForATooLongKeyPathIsInvalid() {
        let node = CyclicNode()
        node.next = node
        let sink = CountingSink()
        let token = GuardDiagnostics.withSink(sink) {
            node.guardedObserve(keyPath: Self.cyclicKeyPath(components: Self.limit + 1)) { _, _ in }
        }
        XCTAssertEqual(token.result, .invalid(.keyPathTooLong))
        XCTAssertEqual(sink.events.map(\.invalidArgument), [.keyPathTooLong])
        token.invalidate()
        node.next = nil
    }
}
