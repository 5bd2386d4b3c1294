import Foundation

/// Holds every worker at the start line until all have arrived, then releases them together, so the first
/// operations really race.
final class StartGate: @unchecked Sendable {
    private let condition = NSCondition()
    private var arrived = 0
    private var isOpen = false

    /// Called by a worker: counts it in and blocks until the gate opens.
    func arriveAndWait() {
        condition.lock()
        arrived += 1
        condition.broadcast()
        while !isOpen { condition.wait() }
        condition.unlock()
    }

    /// Blocks until `count` workers arrived or `timeout` passed; returns whether they all did.
    func waitForArrivals(_ count: Int, timeout: TimeInterval) -> Bool {
        let deadline = Date(timeIntervalSinceNow: timeout)
        condition.lock()
        defer { condition.unlock() }
        while arrived < count {
            if !condition.wait(until: deadline) { return arrived >= count }
        }
        return true
    }

    /// Releases every waiting worker.
    func open() {
        condition.lock()
        isOpen = true
        condition.broadcast()
        condition.unlock()
    }
}
