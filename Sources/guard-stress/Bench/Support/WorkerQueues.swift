import Dispatch

/// Serial Dispatch queues that run one piece of work each, released together from a ``StartLine``.
final class WorkerQueues: @unchecked Sendable {
    private let queues: [DispatchQueue]

    /// `count` serial queues.
    init(count: Int) {
        queues = (0..<count).map { DispatchQueue(label: "guard-stress.bench.worker-\($0)") }
    }

    var count: Int { queues.count }

    /// Runs `work(index)` on the first `queues` queues at once and returns the seconds from their release until the
    /// last one finished.
    func run(queues active: Int, _ work: @escaping @Sendable (Int) -> Void) -> Double {
        precondition((1...queues.count).contains(active), "asked for \(active) of \(queues.count) queues")
        let line = StartLine()
        let group = DispatchGroup()
        for index in 0..<active {
            group.enter()
            queues[index].async {
                line.arriveAndWait()
                work(index)
                group.leave()
            }
        }
        line.waitForArrivals(active)
        let start = Stopwatch.now()
        line.release(active)
        group.wait()
        return Double(Stopwatch.now() &- start) / 1e9
    }
}
