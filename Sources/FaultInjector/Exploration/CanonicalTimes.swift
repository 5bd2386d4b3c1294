/// Puts an explored run's times in canonical form: each tick the run took is renumbered as if the steps had run in
/// the canonical order of their class (``HappensBefore/canonicalOrder()``), each step's own ticks keeping their order.
///
/// Two executions of one class differ only in the order of independent steps, so after renumbering they stamp the
/// same times: their histories are equal, and the oracle judges them alike. The renumbered times are those a run of
/// the canonical order would take, a real interleaving of the same class, so every real-time relation the oracle
/// reads (a call that returned before another began) holds in an execution that happened.
struct CanonicalTimes {
    private let start: UInt64
    private let ends: [UInt64]
    private let newStart: [UInt64]

    /// The renumbering for a run whose steps ended at ticks `ends` (the first began at `start`), to run in `order`.
    init(start: UInt64, ends: [UInt64], order: [Int]) {
        self.start = start
        self.ends = ends
        var newStart = Array(repeating: UInt64(0), count: ends.count)
        var next = start
        for step in order where step < ends.count {
            newStart[step] = next
            next += ends[step] - (step == 0 ? start : ends[step - 1])
        }
        self.newStart = newStart
    }

    /// Tick `tick` renumbered. Ticks of the set-up and of the teardown keep their numbers.
    func map(_ tick: UInt64) -> UInt64 {
        guard tick > start, let last = ends.last, tick <= last else { return tick }
        var low = 0
        var high = ends.count - 1
        while low < high {
            let middle = (low + high) / 2
            if ends[middle] < tick { low = middle + 1 } else { high = middle }
        }
        let stepStart = low == 0 ? start : ends[low - 1]
        return newStart[low] + (tick - stepStart)
    }

    /// `history` with every time renumbered, and re-sorted by the new times.
    func apply(to history: History) -> History {
        var history = history
        for index in history.operations.indices {
            history.operations[index].call = map(history.operations[index].call)
            history.operations[index].ret = map(history.operations[index].ret)
        }
        history.operations.sort { $0.call < $1.call }
        for index in history.deliveries.indices { history.deliveries[index].time = map(history.deliveries[index].time) }
        history.deliveries.sort { $0.time < $1.time }
        for index in history.diagnostics.indices {
            history.diagnostics[index].time = map(history.diagnostics[index].time)
        }
        history.diagnostics.sort { $0.time < $1.time }
        history.observerDeinitTimes = history.observerDeinitTimes.mapValues(map)
        history.objectDeinitTimes = history.objectDeinitTimes.mapValues(map)
        history.controllerEndStartTimes = history.controllerEndStartTimes.mapValues(map)
        history.controllerEndTimes = history.controllerEndTimes.mapValues(map)
        return history
    }
}
