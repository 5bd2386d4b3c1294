#if canImport(ObjectiveC)
import Foundation
import GuardCore
import XCTest

// Apple platforms only: the NSObject-facing API (typed key paths, the forwarding variant, the default backend, tokens
// and async sequences) on Foundation's own KVO. The behavioural contract itself is ConformanceOnNSObjectTests.

/// A model with `@objc dynamic` keys, and one Swift-only property Objective-C cannot name.
final class NSObjectPlayer: NSObject, @unchecked Sendable {
    @objc dynamic var rate: Double = 0
    @objc dynamic var title: String?
    var swiftOnly = 0
}

/// An observer in the FBKVOController shape that receives Foundation's callback.
final class NSObjectForwardingObserver: NSObject, @unchecked Sendable {
    private let lock = NSLock()
    private var received: [(keyPath: String?, context: UnsafeMutableRawPointer?, new: Any?, kind: UInt?)] = []

    override func observeValue(
        forKeyPath keyPath: String?, of object: Any?, change: [NSKeyValueChangeKey: Any]?,
        context: UnsafeMutableRawPointer?
    ) {
        let kind = (change?[.kindKey] as? NSNumber)?.uintValue
        lock.withLock { received.append((keyPath, context, change?[.newKey], kind)) }
    }

    var calls: [(keyPath: String?, context: UnsafeMutableRawPointer?, new: Any?, kind: UInt?)] {
        lock.withLock { received }
    }
}

final class NSObjectAPITests: XCTestCase {
    func testTypedKeyPathsOfObjcProperties() {
        let observer = ConformanceObserver()
        let sink = CountingSink()
        let controller = ObservationController(observer: observer, diagnosticSink: sink)
        let player = NSObjectPlayer()
        let rates = ConformanceValueBox<[Double]>()
        XCTAssertEqual(
            controller.observe(player, \.rate, options: [.initial, .new]) { _, _, change in
                rates.mutate { $0 = ($0 ?? []) + [change.newValue ?? -1] }
            }, .registered)
        player.rate = 1.5
        XCTAssertEqual(controller.unobserve(player, \.rate), .removed)
        player.rate = 2
        XCTAssertEqual(rates.value, [0, 1.5])
        XCTAssertEqual(controller.observe(player, \.swiftOnly) { _, _, _ in }, .invalid(.unobservableKeyPath))
        XCTAssertEqual(sink.events.map(\.invalidArgument), [.unobservableKeyPath])
        XCTAssertEqual(NSObjectBackend().registrationCount(on: player), 0)
    }

    func testTheDefaultBackendObservesKVOObjectsAndNSObjectsWithOneController() {
        let observer = ConformanceObserver()
        let controller = ObservationController(observer: observer, diagnosticSink: CountingSink())
        let player = NSObjectPlayer()
        let model = RuntimeConformanceModel()
        let log = ConformanceLog()
        controller.observe(object: player, keyPath: "rate", options: .new) { _, object, change in log.record(object, change) }
        controller.observe(object: model, keyPath: "age", options: .new) { _, object, change in log.record(object, change) }
        player.rate = 3
        model.age = 4
        XCTAssertEqual(log.all.map(\.new), [.int(3), .int(4)], "Foundation's NSNumber 3.0 reads as the number 3")
        XCTAssertEqual(NSObjectBackend().registrationCount(on: player), 1)
        XCTAssertEqual(model.observationCount, 1)
        controller.unobserveAll()
        XCTAssertEqual(NSObjectBackend().registrationCount(on: player), 0)
        XCTAssertEqual(model.observationCount, 0)
    }

    func testTheForwardingVariantCallsTheObserversOwnCallbackWithFoundationsDictionary() {
        let observer = NSObjectForwardingObserver()
        let controller = ObservationController(observer: observer, diagnosticSink: CountingSink())
        let player = NSObjectPlayer()
        let context = UnsafeMutableRawPointer.allocate(byteCount: 1, alignment: 1)
        defer { context.deallocate() }
        XCTAssertEqual(controller.observe(player, keyPath: "title", options: [.new], context: context), .registered)
        player.title = "Intro"
        player.title = nil
        let calls = observer.calls
        XCTAssertEqual(calls.map(\.keyPath), ["title", "title"])
        XCTAssertEqual(calls.map(\.context), [context, context])
        XCTAssertEqual(calls.map(\.kind), [1, 1])
        XCTAssertEqual(calls.first?.new as? String, "Intro")
        XCTAssertTrue(calls.last?.new is NSNull, "a nil value travels as NSNull, as Foundation sends it")
    }

    func testATokenAndAnAsyncSequenceOnAnNSObject() async {
        var player: NSObjectPlayer? = NSObjectPlayer()
        let seen = ConformanceValueBox<[Double]>()
        let token = player!.guardedObserve(\.rate, options: [.initial, .new]) { _, change in
            seen.mutate { $0 = ($0 ?? []) + [change.newValue ?? -1] }
        }
        XCTAssertEqual(token.result, .registered)
        player?.rate = 1
        token.invalidate()
        player?.rate = 2
        XCTAssertEqual(seen.value, [0, 1])

        let values = player!.values(of: \.rate, bufferingNewest: 8)
        let iterator = values.makeAsyncIterator()
        player?.rate = 5
        autoreleasepool { player = nil }
        let task = Task { () -> [Double] in
            var iterator = iterator
            var collected: [Double] = []
            while let value = await iterator.next() { collected.append(value) }
            return collected
        }
        let collected = await task.value
        XCTAssertEqual(collected, [2, 5], "the current value, the change, then the end with the object")
    }

    func testAWeaklyObservedNSObjectDeallocatesWithoutAnyFoundationException() {
        let observer = ConformanceObserver()
        let controller = ObservationController(
            observer: observer, retainsObservedObjects: false, diagnosticSink: CountingSink())
        var player: NSObjectPlayer? = NSObjectPlayer()
        let weakPlayer = ConformanceWeak(player)
        autoreleasepool {
            controller.observe(object: player, keyPaths: ["rate", "title"], options: [.new]) { _, _, _ in }
            player = nil
        }
        XCTAssertNil(weakPlayer.object)
        XCTAssertEqual(controller.registrationCount, 0, "the sentinel told the guard")
        controller.unobserveAll()
    }
}
#endif
