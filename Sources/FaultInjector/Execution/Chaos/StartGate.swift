import Foundation

/// Holds the workers at the start line until all have arrived, then releases them together, so the first operations
/// really race.
///
/// Dispatch runs only so many queues at once: its thread pool has a limit (about 255 threads on Linux, fewer for
/// some queues on Apple platforms), and a worker queue without a thread never arrives while the others wait here.
/// So the gate also opens once arrivals have stopped (no new one for a short settling time): the workers that
/// arrived start together, and the rest pass the open gate as threads come free. A setting above the pool's limit
/// then runs, with fewer queues at once than asked for, instead of waiting for workers that cannot come.
final class StartGate: @unchecked Sendable {
    private let condition = NSCondition()
    private var arrived = 0
    private var isOpen = false

    /// Called by a worker: counts it in and blocks until the gate opens (at once if it is open).
    func arriveAndWait() {
        condition.lock()
        arrived += 1
        condition.broadcast()
        while !isOpen { condition.wait() }
        condition.unlock()
    }

    /// Blocks until `count` workers arrived, or arrivals stopped: none for `settle` seconds after the last one, or
    /// none at all within `timeout`. Returns how many arrived.
    func waitForArrivals(_ count: Int, settle: TimeInterval, timeout: TimeInterval) -> Int {
        let firstDeadline = Date(timeIntervalSinceNow: timeout)
        condition.lock()
        defer { condition.unlock() }
        var seen = arrived
        var deadline = seen > 0 ? Date(timeIntervalSinceNow: settle) : firstDeadline
        while arrived < count {
            if condition.wait(until: deadline) {
                if arrived != seen {
                    seen = arrived
                    deadline = Date(timeIntervalSinceNow: settle)
                }
            } else if arrived == seen {
                return arrived
            } else {
                seen = arrived
                deadline = Date(timeIntervalSinceNow: settle)
            }
        }
        return arrived
    }

    /// Releases every waiting worker; workers arriving later pass at once.
    func open() {
        condition.lock()
        isOpen = true
        condition.broadcast()
        condition.unlock()
    }
}
