import Foundation
@testable import GuardCore
import XCTest

/// `values(of:)`: a property's values as an `AsyncSequence`, on GuardCore's runtime.
final class ObservedValuesTests: XCTestCase {
    final class Counter: KVOObject, @unchecked Sendable {
        @Observed var value = 0
        var doubled: Int { value * 2 }
    }

    /// Waits (up to `seconds`) until `condition` holds.
    private func eventually(seconds: Double = 10, _ condition: () -> Bool) -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while !condition() {
            if Date() > deadline { return false }
            usleep(1_000)
        }
        return true
    }

    /// The task's value, or `nil` if it did not finish within `seconds` (it is cancelled then).
    private func value<Result: Sendable>(of task: Task<Result, Never>, within seconds: Double = 10) async -> Result? {
        let finished = ConformanceFlag()
        let timedOut = ConformanceFlag()
        let watchdog = Task {
            try? await Task.sleep(nanoseconds: UInt64(seconds * 1e9))
            if !finished.isSet {
                timedOut.set()
                task.cancel()
            }
        }
        let result = await task.value
        finished.set()
        watchdog.cancel()
        return timedOut.isSet ? nil : result
    }

    /// Every value `iterator` still yields, or `nil` if it did not end within `seconds`.
    private func remainingValues(
        of iterator: ObservedValues<Int>.AsyncIterator, within seconds: Double = 10
    ) async -> [Int]? {
        let task = Task { () -> [Int] in
            var iterator = iterator
            var seen: [Int] = []
            while let value = await iterator.next() { seen.append(value) }
            return seen
        }
        return await value(of: task, within: seconds)
    }

    /// The next `count` values of `iterator`, or `nil` if they did not come within `seconds`.
    private func nextValues(
        _ count: Int, of iterator: ObservedValues<Int>.AsyncIterator, within seconds: Double = 10
    ) async -> [Int?]? {
        let task = Task { () -> [Int?] in
            var iterator = iterator
            var seen: [Int?] = []
            for _ in 0..<count { seen.append(await iterator.next()) }
            return seen
        }
        return await value(of: task, within: seconds)
    }

    func testTheCurrentValueFirstThenEachChangeUntilTheObjectDeinitializes() async {
        var counter: Counter? = Counter()
        counter?.value = 5
        let values = counter!.values(of: \.value, bufferingNewest: 16)
        let task = Task { () -> [Int] in
            var seen: [Int] = []
            for await value in values { seen.append(value) }
            return seen
        }
        XCTAssertTrue(eventually { counter?.observationCount == 1 }, "the iterator never started observing")
        counter?.value = 6
        counter?.value = 7
        counter = nil
        let seen = await value(of: task)
        XCTAssertEqual(seen, [5, 6, 7], "the loop ends once the object is gone, after what was buffered")
    }

    func testCancellingTheIteratingTaskEndsTheSequenceAndTheObservation() async {
        let counter = Counter()
        let values = counter.values(of: \.value)
        let task = Task { () -> Int in
            var count = 0
            for await _ in values { count += 1 }
            return count
        }
        XCTAssertTrue(eventually { counter.observationCount == 1 })
        task.cancel()
        let count = await value(of: task)
        XCTAssertNotNil(count, "the loop did not end on cancellation")
        XCTAssertTrue(eventually { counter.observationCount == 0 }, "cancellation left the observation running")
        counter.value = 1
    }

    func testLeavingTheLoopEndsTheObservation() async {
        let counter = Counter()
        var first: Int?
        for await value in counter.values(of: \.value) {
            first = value
            break
        }
        XCTAssertEqual(first, 0)
        XCTAssertEqual(counter.observationCount, 0, "the iterator went away with the loop")
    }

    func testASlowConsumerGetsTheNewestValuesOnly() async {
        for limit in [1, 4] {
            var counter: Counter? = Counter()
            let iterator = counter!.values(of: \.value, bufferingNewest: limit).makeAsyncIterator()
            for value in 1...100 { counter?.value = value }
            counter = nil
            let seen = await remainingValues(of: iterator)
            XCTAssertEqual(seen, Array((101 - limit)...100), "limit \(limit): the buffer keeps the newest values only")
        }
    }

    func testEachIteratorIsItsOwnObservation() async {
        let counter = Counter()
        let values = counter.values(of: \.value, bufferingNewest: 8)
        let first = values.makeAsyncIterator()
        let second = values.makeAsyncIterator()
        XCTAssertEqual(counter.observationCount, 2)
        counter.value = 1
        let fromFirst = await nextValues(2, of: first)
        let fromSecond = await nextValues(1, of: second)
        XCTAssertEqual(fromFirst, [0, 1])
        XCTAssertEqual(fromSecond, [0], "the buffer of one keeps the newest value")
    }

    func testAnUnnamedKeyPathOrAGoneObjectIsAnEmptySequence() async {
        let counter = Counter()
        let sink = CountingSink()
        let unnamed = GuardDiagnostics.withSink(sink) { counter.values(of: \.doubled).makeAsyncIterator() }
        let fromUnnamed = await remainingValues(of: unnamed)
        XCTAssertEqual(fromUnnamed, [])
        XCTAssertEqual(sink.events.map(\.invalidArgument), [.unobservableKeyPath])
        XCTAssertEqual(sink.events.map(\.observerType), ["TokenObserver"], "the token's observer, by a name that says so")

        var gone: Counter? = Counter()
        let values = gone!.values(of: \.value)
        gone = nil
        let fromGone = await remainingValues(of: values.makeAsyncIterator())
        XCTAssertEqual(fromGone, [])
    }

    /// A value whose deinit sets the property it came from (which pushes a value into the same buffer).
    final class Payload: Sendable {
        private let onDeinit: (@Sendable () -> Void)?

        init(onDeinit: (@Sendable () -> Void)? = nil) {
            self.onDeinit = onDeinit
        }

        deinit { onDeinit?() }
    }

    final class PayloadBox: KVOObject, @unchecked Sendable {
        @Observed var payload = Payload()
    }

    /// Payloads that, when they go, set `box.payload` once more (to a plain payload).
    private func resettingPayloads(_ count: Int, of box: PayloadBox, released: TestBox<Int>) -> [Payload] {
        (0..<count).map { _ in
            Payload { [weak box] in
                released.mutate { $0 += 1 }
                box?.payload = Payload()
            }
        }
    }

    func testValuesTheBufferDropsAreReleasedOutsideItsLock() async {
        // Taken values, values dropped because the buffer is full, and values a cancelled sequence still held: each
        // payload's deinit sets the property again, whose handler pushes into the same buffer. Under the lock that
        // would trap (debug builds' error-checking mutex) or deadlock.
        let box = PayloadBox()
        let released = TestBox(0)
        var iterator: ObservedValues<Payload>.AsyncIterator? = box.values(of: \.payload, bufferingNewest: 2)
            .makeAsyncIterator()
        for payload in resettingPayloads(2, of: box, released: released) { box.payload = payload }
        // Each taken value is let go at once; the buffer lets go of its storage when it is empty.
        for _ in 0..<2 { _ = await iterator?.next() }
        for payload in resettingPayloads(80, of: box, released: released) { box.payload = payload }
        iterator = nil
        box.payload = Payload()
        XCTAssertTrue(eventually { released.get() == 82 }, "released \(released.get()) of 82")
        XCTAssertEqual(box.observationCount, 0)
    }

    final class Playlist: KVOObject, @unchecked Sendable {
        @Observed var songs = [1, 2, 3]
        @Observed var count = 0
    }

    func testEveryValueIsTheWholeValueAlsoAfterAToManyChange() async {
        let playlist = Playlist()
        var iterator = playlist.values(of: \.songs, bufferingNewest: 10).makeAsyncIterator()
        playlist.insert([4], at: [3], into: \.songs)
        playlist.removeElements(at: [0], from: \.songs)
        playlist.replaceElements(at: [0], with: [9], in: \.songs)
        playlist.songs = [7]
        var seen: [[Int]] = []
        for _ in 0..<5 { seen.append(await iterator.next() ?? []) }
        XCTAssertEqual(seen, [[1, 2, 3], [1, 2, 3, 4], [2, 3, 4], [9, 3, 4], [7]])
    }

    func testAChangeMadeInsideAnotherHandlerLeavesTheSequenceOnTheLatestValue() async {
        let playlist = Playlist()
        let token = playlist.guardedObserve(\.count, options: [.new]) { playlist, change in
            if change.newValue == 1 { playlist.count = 2 }
        }
        var iterator = playlist.values(of: \.count).makeAsyncIterator()
        _ = await iterator.next()
        playlist.count = 1
        let latest = await iterator.next()
        XCTAssertEqual(latest, 2, "the nested change is announced first; the outer one reads the latest value too")
        XCTAssertEqual(playlist.count, 2)
        token.invalidate()
    }

    func testTheInitialValueNeverFollowsAValueAChangeAlreadyGave() async {
        // A change announced between the registration and the initial read's push gave a value at least as new.
        let buffer = ObservedValuesBuffer<Int>(limit: 4)
        buffer.push(20)
        buffer.pushInitial(0)
        buffer.finish()
        var seen: [Int] = []
        while let value = await buffer.next() { seen.append(value) }
        XCTAssertEqual(seen, [20])
        let fresh = ObservedValuesBuffer<Int>(limit: 4)
        fresh.pushInitial(0)
        fresh.push(1)
        fresh.finish()
        var freshSeen: [Int] = []
        while let value = await fresh.next() { freshSeen.append(value) }
        XCTAssertEqual(freshSeen, [0, 1])
    }

    func testADroppedValueIsReleasedWhenItIsDropped() {
        let box = PayloadBox()
        let released = TestBox(0)
        let iterator = box.values(of: \.payload, bufferingNewest: 1).makeAsyncIterator()
        for _ in 0..<20 {
            box.payload = Payload { released.mutate { $0 += 1 } }
        }
        box.payload = Payload()
        XCTAssertEqual(released.get(), 20, "only the newest value waits")
        withExtendedLifetime(iterator) {}
    }

    func testNoMisuseReachesTheRuntime() async {
        let misuses = recordingMisuse {
            var counter: Counter? = Counter()
            var iterator: ObservedValues<Int>.AsyncIterator? = counter!.values(of: \.value).makeAsyncIterator()
            counter?.value = 1
            counter = nil
            iterator = nil
            _ = iterator
        }
        XCTAssertEqual(misuses, [])
    }
}
