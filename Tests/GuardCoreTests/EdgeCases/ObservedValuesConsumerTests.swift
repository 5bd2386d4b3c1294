// `ObservedValues` consumed from several tasks at once, and iterators made and dropped from many threads.
import Foundation
@testable import GuardCore
import XCTest

final class EdgeCounter: KVOObject, @unchecked Sendable {
    @Observed var value = 0
}

final class ObservedValuesConsumerTests: XCTestCase {
    /// One iterator consumed from four tasks at once: every value is taken by exactly one consumer, and all four end
    /// once the object deinitializes .
    func testOneIteratorManyConsumingTasks() async {
        var counter: EdgeCounter? = EdgeCounter()
        let iterator = counter!.values(of: \.value, bufferingNewest: 10_000).makeAsyncIterator()
        let tasks = (0..<4).map { _ in
            Task { () -> [Int] in
                var iterator = iterator
                var seen: [Int] = []
                while let value = await iterator.next() { seen.append(value) }
                return seen
            }
        }
        for value in 1...2_000 { counter?.value = value }
        counter = nil
        let watchdog = Task {
            try? await Task.sleep(nanoseconds: 20_000_000_000)
            for task in tasks { task.cancel() }
        }
        var all: [Int] = []
        for task in tasks { all += await task.value }
        watchdog.cancel()
        XCTAssertEqual(all.sorted(), Array(0...2_000), "each value once, across consumers")
    }

    /// Many short-lived iterators made and dropped on several threads while the property changes: no leak of
    /// registrations (the object's observation count returns to zero), no trap.
    func testIteratorsChurnedFromManyThreads() {
        let counter = EdgeCounter()
        let group = DispatchGroup()
        for worker in 0..<8 {
            DispatchQueue.global().async(group: group) {
                for step in 0..<300 {
                    if worker % 2 == 0 {
                        counter.value = step
                    } else {
                        let iterator = counter.values(of: \.value).makeAsyncIterator()
                        _ = iterator
                    }
                }
            }
        }
        XCTAssertEqual(group.wait(timeout: .now() + 30), .success)
        XCTAssertEqual(counter.observationCount, 0, "every dropped iterator ended its observation")
    }
}
