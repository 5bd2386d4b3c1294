/// The bounded hand-over between an observation's handler (any thread) and the task iterating its values: at most
/// `limit` values wait; a value arriving when the buffer is full drops the oldest waiting one.
///
/// Values are the user's (their deinit may set the observed property, which pushes here again): storage that drops
/// values is moved out under the lock and released after unlocking.
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
        let (consumer, discarded) = lock.withLock { () -> (CheckedContinuation<Value?, Never>?, [Value]) in
            guard !isFinished else { return (nil, []) }
            if !consumers.isEmpty { return (consumers.removeFirst(), []) }
            waiting.append(value)
            if waiting.count - head > limit {
                head += 1
                dropped += 1
            }
            guard head > 32, head * 2 > waiting.count else { return (nil, []) }
            return (nil, compact())
        }
        // The dropped values go here, after unlocking.
        withExtendedLifetime(discarded) {}
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
        let discarded = lock.withLock { () -> [Value] in
            defer {
                waiting = []
                head = 0
            }
            return waiting
        }
        withExtendedLifetime(discarded) {}
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
        let (take, discarded) = lock.withLock { () -> (Take, [Value]) in
            if head < waiting.count {
                let value = waiting[head]
                head += 1
                return (.value(value), head == waiting.count ? compact() : [])
            }
            if isFinished { return (.finished, []) }
            if let consumer { consumers.append(consumer) }
            return (.wait, [])
        }
        // The values taken or dropped before go here, after unlocking.
        withExtendedLifetime(discarded) {}
        return take
    }

    /// Lock held. Drops the values before `head` from `waiting` and returns the storage that held them, for the
    /// caller to release after unlocking (the values still waiting are kept by the new storage too).
    private func compact() -> [Value] {
        let old = waiting
        waiting = Array(old[head...])
        head = 0
        return old
    }
}
