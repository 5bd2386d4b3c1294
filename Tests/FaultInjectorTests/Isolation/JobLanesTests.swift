@testable import FaultInjector
import Foundation
import XCTest

/// ``JobLanes``: jobs run at once on their lanes, outputs come back as jobs finish (``JobLanes/map`` puts them in
/// job order), one lane runs on the caller's thread, cancelling runs the job's handler.
final class JobLanesTests: XCTestCase {
    /// Two jobs that each wait for the other finish only if they run at the same time.
    func testJobsRunAtOnceOnTheirLanes() {
        let meeting = DispatchGroup()
        meeting.enter()
        meeting.enter()
        let outputs = JobLanes<Int, Int, Bool>.map(
            [0, 1], lanes: 2, makeLane: { $0 },
            perform: { _, _, _ in
                meeting.leave()
                return meeting.wait(timeout: .now() + 10) == .success
            })
        XCTAssertEqual(outputs, [true, true])
    }

    func testMapKeepsTheJobsOrderAndEachLaneKeepsItsState() {
        let closed = Counter()
        let outputs = JobLanes<[Int], Int, String>.map(
            Array(0..<50), lanes: 4, makeLane: { _ in [] },
            perform: { lane, job, _ in
                lane.append(job)
                if job % 7 == 0 { usleep(2_000) }
                return "\(job):\(lane.count)"
            },
            closeLane: { _ in closed.add() })
        XCTAssertEqual(outputs.map { $0.split(separator: ":")[0] }, (0..<50).map { Substring(String($0)) })
        let counts = outputs.map { Int($0.split(separator: ":")[1])! }
        XCTAssertLessThanOrEqual(counts.filter { $0 == 1 }.count, 4, "at most four lanes began")
        XCTAssertGreaterThanOrEqual(counts.max() ?? 0, 50 / 4, "a lane keeps its state from job to job")
        XCTAssertEqual(closed.value, 4, "every lane closed")
    }

    func testOneLaneRunsOnTheCallersThread() {
        let caller = pthread_self()
        let outputs = JobLanes<Int, Int, Bool>.map(
            [1, 2, 3], lanes: 1, makeLane: { $0 }, perform: { _, _, _ in pthread_equal(pthread_self(), caller) != 0 })
        XCTAssertEqual(outputs, [true, true, true])
    }

    /// Cancelling a running job runs its handler (here: lets it stop waiting) and its control says so.
    func testCancellingARunningJobRunsItsHandler() {
        let started = DispatchSemaphore(value: 0)
        let lanes = JobLanes<Int, Int, Bool>(
            count: 2, makeLane: { $0 },
            perform: { _, _, control in
                let stop = DispatchSemaphore(value: 0)
                control.onCancel { stop.signal() }
                started.signal()
                let stopped = stop.wait(timeout: .now() + 10) == .success
                return stopped && control.isCancelled
            })
        lanes.submit(7, id: 7)
        XCTAssertEqual(started.wait(timeout: .now() + 10), .success)
        lanes.cancel(id: 7)
        let (id, output) = lanes.next()
        XCTAssertEqual(id, 7)
        XCTAssertTrue(output)
        lanes.close()
    }
}

private final class Counter: @unchecked Sendable {
    private let lock = NSLock()
    private var count = 0

    func add() {
        lock.lock()
        count += 1
        lock.unlock()
    }

    var value: Int {
        lock.lock()
        defer { lock.unlock() }
        return count
    }
}
