import Foundation
@testable import GuardCore
import XCTest

/// `values(of:)` when a change lands between two steps of starting or cancelling a sequence: each test places the
/// change after every lock release in turn (``LockReleaseTrigger``), which is where another thread can get in.
final class ObservedValuesRaceTests: XCTestCase {
    final class Counter: KVOObject, @unchecked Sendable {
        @Observed var value = 0
    }

    /// The buffer's own step: a value pushed while the initial value is being pushed is not overtaken by it.
    func testAValuePushedWhileTheInitialOneIsPushedStaysLast() async {
        for limit in [1, 4] {
            var release = 1
            while true {
                let buffer = ObservedValuesBuffer<Int>(limit: limit)
                let (fired, releases) = LockReleaseTrigger.run(afterRelease: release, do: { buffer.push(2) }) {
                    buffer.pushInitial(1)
                }
                buffer.finish()
                var seen: [Int] = []
                while let value = await buffer.next() { seen.append(value) }
                if fired {
                    XCTAssertEqual(seen.last, 2, "limit \(limit), push after release \(release): yielded \(seen)")
                }
                guard release < releases else { break }
                release += 1
            }
        }
    }

    /// End to end: whenever a change lands while the iterator is being made, the sequence's last value is the
    /// property's latest ("the value read when the observation began comes first unless a change made meanwhile
    /// already yielded a value, which is at least as new").
    func testAChangeWhileTheIteratorIsMadeLeavesTheLatestValueLast() async {
        for limit in [1, 4] {
            var release = 1
            while true {
                let counter = Counter()
                var iterator: ObservedValues<Int>.AsyncIterator?
                let (fired, releases) = LockReleaseTrigger.run(afterRelease: release, do: { counter.value = 100 }) {
                    iterator = counter.values(of: \.value, bufferingNewest: limit).makeAsyncIterator()
                }
                guard var iterator else { return XCTFail("no iterator") }
                iterator.subscription.buffer.finish()
                var seen: [Int] = []
                while let value = await iterator.next() { seen.append(value) }
                XCTAssertEqual(
                    seen.last, counter.value, "limit \(limit), change after release \(release) (fired: \(fired))")
                guard release < releases else { break }
                release += 1
            }
        }
    }

    /// A value pushed while a cancellation runs is not left for `next()`: a cancelled sequence ends at once.
    func testNothingPushedDuringACancellationIsYielded() async {
        var release = 1
        while true {
            let buffer = ObservedValuesBuffer<Int>(limit: 8)
            buffer.push(1)
            let (_, releases) = LockReleaseTrigger.run(afterRelease: release, do: { buffer.push(2) }) {
                buffer.cancel()
            }
            let next = await buffer.next()
            XCTAssertNil(next, "push after release \(release) of the cancellation")
            guard release < releases else { break }
            release += 1
        }
    }

    /// End to end, as the iterating task's cancellation runs it: a change during the cancellation yields nothing.
    func testAChangeDuringTheSubscriptionsCancellationIsNotYielded() async {
        var release = 1
        while true {
            let counter = Counter()
            var iterator = counter.values(of: \.value, bufferingNewest: 8).makeAsyncIterator()
            let subscription = iterator.subscription
            let (_, releases) = LockReleaseTrigger.run(afterRelease: release, do: { counter.value = 7 }) {
                subscription.cancel()
            }
            let next = await iterator.next()
            XCTAssertNil(next, "change after release \(release) of the cancellation")
            guard release < releases else { break }
            release += 1
        }
    }
}
