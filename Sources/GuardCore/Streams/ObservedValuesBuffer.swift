/// The bounded hand-over between an observation's handler (any thread) and the task iterating its values: at most
/// `limit` values wait; a value arriving when the buffer is full drops the oldest waiting one.
final class ObservedValuesBuffer<Value: Sendable>: @unchecked Sendable {
    private enum Take {
        case value(Value)
        case finished
        case wait
    }

    private let lock = Lock()
    private let limit: Int
    private var waiting: [Value] = []
    private var head = 0
    private var isFinished = false
    private var consumers: [CheckedContinuation<Value?, Never>] = []
    private var dropped = 0

    init(limit: Int) {
        self.limit = max(1, limit)
    }

    /// Hands `value` to a waiting consumer, or buffers it (dropping the oldest if full). Ignored once finished, and
    /// for `nil` (a change whose value is not a `Value`, which a correct backend never sends).
    func push(_ value: Value?) {
        guard let value else { return }
        let consumer = lock.withLock { () -> CheckedContinuation<Value?, Never>? in
            guard !isFinished else { return nil }
            if !consumers.isEmpty { return consumers.removeFirst() }
            waiting.append(value)
            if waiting.count - head > limit {
                head += 1
                dropped += 1
            }
            if head > 32, head * 2 > waiting.count {
                waiting.removeFirst(head)
                head = 0
            }
            return nil
        }
        consumer?.resume(returning: value)
    }

    /// No more values: consumers get what is buffered, then `nil`. Idempotent.
    func finish() {
        let consumers = lock.withLock { () -> [CheckedContinuation<Value?, Never>] in
            isFinished = true
            // Consumers wait only while nothing is buffered.
            defer { self.consumers = [] }
            return self.consumers
        }
        for consumer in consumers { consumer.resume(returning: nil) }
    }

    /// Finishes and drops what is buffered.
    func cancel() {
        lock.withLock {
            waiting = []
            head = 0
        }
        finish()
    }

    /// The next buffered value, waiting for one if needed; `nil` once finished and drained.
    func next() async -> Value? {
        switch take(orEnqueue: nil) {
        case .value(let value): return value
        case .finished: return nil
        case .wait: break
        }
        return await withCheckedContinuation { continuation in
            switch take(orEnqueue: continuation) {
            case .value(let value): continuation.resume(returning: value)
            case .finished: continuation.resume(returning: nil)
            case .wait: break
            }
        }
    }

    /// How many values were dropped because the buffer was full (for tests).
    var droppedCount: Int {
        lock.withLock { dropped }
    }

    private func take(orEnqueue consumer: CheckedContinuation<Value?, Never>?) -> Take {
        lock.withLock {
            if head < waiting.count {
                let value = waiting[head]
                head += 1
                if head == waiting.count {
                    waiting.removeAll(keepingCapacity: true)
                    head = 0
                }
                return .value(value)
            }
            if isFinished { return .finished }
            if let consumer { consumers.append(consumer) }
            return .wait
        }
    }
}
