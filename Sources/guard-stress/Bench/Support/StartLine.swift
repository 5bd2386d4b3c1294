import Dispatch

/// Holds worker queues until every one of them is ready, then lets them go together, so a throughput figure times
/// the work and not the queues' start-up.
final class StartLine: @unchecked Sendable {
    private let arrivals = DispatchSemaphore(value: 0)
    private let departures = DispatchSemaphore(value: 0)

    /// Called by a worker: announces it is ready and waits for ``release(_:)``.
    func arriveAndWait() {
        arrivals.signal()
        departures.wait()
    }

    /// Waits until `workers` workers have arrived.
    func waitForArrivals(_ workers: Int) {
        for _ in 0..<workers { arrivals.wait() }
    }

    /// Lets `workers` waiting workers go.
    func release(_ workers: Int) {
        for _ in 0..<workers { departures.signal() }
    }
}
