/// The promises of a value sequence (`values(of:bufferingNewest:)`), checked against what each consumer of the round
/// saw (``History/streams``) and the changes of its key (serialized per object, each with a value of its own):
///
/// - every value is one the key had, in the order the key had them, each once;
/// - the first is the value when the observation began or a newer one (never older than a change that had returned);
/// - at most `limit` values wait: of the values taken after the consumer asked at some moment, at most `limit` were
///   pushed before that moment; and only the oldest waiting value goes, only when `limit` wait and a new one comes,
///   so a change skipped between two values taken was followed by at least `limit` newer ones before the second came;
/// - a sequence whose object deinitialized ends, after the values it had buffered, the last being the key's last
///   value; one whose task was cancelled ends at once (no value is taken after the cancellation).
struct StreamChecks {
    let index: HistoryIndex
    let history: History

    func run(into verdict: inout Verdict) {
        for record in history.streams where record.object >= 0 {
            verdict.count("a value sequence keeps its promises")
            verdict.count("a value sequence's values checked", record.values.count)
            if let problem = problem(with: record) {
                verdict.add(.init(.valueStream, "values(of: \\.\(record.plan.key.name), bufferingNewest: \(record.plan.limit)) of object \(record.object): \(problem)"))
            }
        }
    }

    /// The first promise `record` breaks, in words; `nil` if it keeps them all.
    private func problem(with record: StreamRecord) -> String? {
        let changes = index.changes[.init(object: record.object, key: record.plan.key)] ?? []
        var positions: [Int: Int] = [:]
        for (position, change) in changes.enumerated() { positions[change.newValue] = position }
        let initial = changes.first?.oldValue ?? 0
        var taken: [Int] = []
        for value in record.values {
            guard let position = positions[value.value] ?? (value.value == initial ? -1 : nil) else {
                return "it yielded \(value.value), a value the key never had"
            }
            if let last = taken.last, position <= last {
                return "it yielded \(value.value) after \(record.values[taken.count - 1].value), which came later or is the same"
            }
            taken.append(position)
        }
        let before = changes.lastIndex { $0.ret < record.madeFrom } ?? -1
        if let first = taken.first, first < before {
            return "its first value \(record.values[0].value) is older than \(changes[before].newValue), set before the "
                + "observation began"
        }
        if let problem = bufferProblem(record, changes: changes, taken: taken) { return problem }
        return endProblem(record, changes: changes, taken: taken)
    }

    /// The limit, and the oldest value dropped first.
    ///
    /// At each `next()` at most `limit` values wait, so of the values taken from then on, at most `limit` were pushed
    /// before it (a value is pushed by the time its change returned; the first one by the time the iterator was
    /// made). And a value is dropped only when the buffer is full and a newer one arrives: a change skipped between two
    /// values taken was followed by at least `limit` newer changes that began before the second value came.
    private func bufferProblem(_ record: StreamRecord, changes: [OperationRecord], taken: [Int]) -> String? {
        let pushedBy = taken.map { $0 < 0 ? record.madeUntil : changes[$0].ret }
        let limit = record.plan.limit
        var end = 0
        for (i, value) in record.values.enumerated() {
            end = max(end, i)
            while end < taken.count, pushedBy[end] < value.asked { end += 1 }
            if end - i > limit {
                return "\(end - i) values pushed before a next() were taken after it, more than the \(limit) that may wait"
            }
        }
        for i in taken.indices.dropFirst() {
            var skipped = taken[i - 1] + 1
            while skipped < taken[i] {
                defer { skipped += 1 }
                // Only a change made after the observation began is surely pushed.
                guard changes[skipped].call > record.madeUntil else { continue }
                var newer = 0
                var position = skipped + 1
                while position < changes.count, newer < limit, changes[position].call < record.values[i].received {
                    newer += 1
                    position += 1
                }
                if newer < limit {
                    return "it dropped \(changes[skipped].newValue) although fewer than \(limit) newer values came before "
                        + "its next value \(record.values[i].value) (only the oldest waiting value goes, and only when "
                        + "\(limit) wait)"
                }
            }
        }
        return nil
    }

    /// How it ended.
    private func endProblem(_ record: StreamRecord, changes: [OperationRecord], taken: [Int]) -> String? {
        switch record.end {
        case .finished:
            // Its object deinitialized: the last value is the key's last one (pushed after the observation began).
            guard let last = changes.indices.last, changes[last].call > record.madeUntil else { return nil }
            if taken.last != last {
                return "it ended with \(record.values.last.map { String($0.value) } ?? "no value") although the key's "
                    + "last value was \(changes[last].newValue) (the newest value is never dropped)"
            }
        case .cancelled(let at, let finished):
            if let late = record.values.first(where: { $0.asked > at }) {
                return "it yielded \(late.value) after its task was cancelled"
            }
            if finished == nil { return "it did not end when its task was cancelled" }
        case .neverEnded:
            return "it did not end although its object had deinitialized"
        case .left, .objectOutlivedTheRun:
            break
        }
        return nil
    }
}
