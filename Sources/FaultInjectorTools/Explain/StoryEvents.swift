import FaultInjector

/// The events a story is told from: a controlled run's trace as recorded, or a chaos run's history put in
/// wall-clock order (each event its own "step").
enum StoryEvents {
    /// A controlled run's trace.
    static func controlled(_ trace: ExecutionTrace) -> [TraceEvent] {
        trace.events
    }

    /// A chaos run's operations and notifications ordered by their times: operations begin at their call and end at
    /// their return, notifications happen at their time. The step of each event is its rank.
    static func chaos(_ history: History) -> [TraceEvent] {
        struct Timed {
            let time: UInt64
            let order: Int
            let worker: Int
            let kind: TraceEvent.Kind
        }
        var timed: [Timed] = []
        for record in history.operations {
            if record.outcome == .skipped {
                timed.append(Timed(time: record.call, order: 1, worker: record.worker, kind: .skipped(operation: record.id, index: record.index, kind: record.kind)))
                continue
            }
            timed.append(
                Timed(
                    time: record.call, order: 1, worker: record.worker,
                    kind: .began(operation: record.id, index: record.index, kind: record.kind, parent: record.parent)))
            timed.append(Timed(time: record.ret, order: 3, worker: record.worker, kind: .ended(operation: record.id, outcome: record.outcome)))
        }
        for delivery in history.deliveries where delivery.worker >= 0 {
            timed.append(
                Timed(
                    time: delivery.time, order: 2, worker: delivery.worker,
                    kind: .delivered(registration: delivery.registration, cause: delivery.cause, isPrior: delivery.isPrior)))
        }
        // Stable: equal times keep begin before notification before end, then the recorded order.
        let sorted = timed.enumerated().sorted { lhs, rhs in
            (lhs.element.time, lhs.element.order, lhs.offset) < (rhs.element.time, rhs.element.order, rhs.offset)
        }
        return sorted.enumerated().map { rank, entry in
            TraceEvent(step: rank, worker: entry.element.worker, kind: entry.element.kind)
        }
    }
}
