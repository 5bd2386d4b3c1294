/// The bounded hand-over between an observation's handler (any thread) and the task iterating its values: at most
/// `limit` values wait; a value arriving when the buffer is full drops the oldest waiting one at once.
///
/// Values are the user's (their deinit may set the observed property, which pushes here again): a value taken out of
/// the buffer, by the consumer or by a drop, is handed out of the lock and released after unlocking.
final class ObservedValuesBuffer<Value: Sendable>: @unchecked Sendable {
    private enum Take {
        case value(Value)
        case finished
        case wait
    }

    private let lock = Lock()
    private let limit: Int
    /// Waiting values from `head` on; the slots before `head` are empty.
    private var waiting: [Value?] = []
    private var head = 0
    private var hasPushed = false
    private var isFinished = false
    private var consumers: [CheckedContinuation<Value?, Never>] = []
    private var dropped = 0

    init(limit: Int) {
        self.limit = max(1, limit)
    }

    /// Hands `value` to a waiting consumer, or buffers it (dropping the oldest if full). Ignored once finished, and
    /// for `nil` (a value that is not a `Value`, which a correct backend never sends).
    func push(_ value: Value?) {
        push(value, unlessAnythingWasPushed: false)
    }

    /// Pushes the value read when the observation began, unless a change already pushed one: that change's value
    /// was read after the observation began too, and may be newer. The check and the push are one step, so a change
    /// pushed meanwhile is never overtaken by the older value.
    func pushInitial(_ value: Value?) {
        push(value, unlessAnythingWasPushed: true)
    }

    private func push(_ value: Value?, unlessAnythingWasPushed: Bool) {
        guard let value else { return }
        let (consumer, droppedValue) = lock.withLock { () -> (CheckedContinuation<Value?, Never>?, Value?) in
            guard !isFinished, !(unlessAnythingWasPushed && hasPushed) else { return (nil, nil) }
            hasPushed = true
            if !consumers.isEmpty { return (consumers.removeFirst(), nil) }
            waiting.append(value)
            guard waiting.count - head > limit else { return (nil, nil) }
            dropped += 1
            return (nil, takeHead())
        }
        // The dropped value goes here, after unlocking.
        withExtendedLifetime(droppedValue) {}
        consumer?.resume(returning: value)
    }

    /// No more values: consumers get what is buffered, then `nil`. Idempotent.
    func finish() {
        end(droppingBuffered: false)
    }

    /// Finishes and drops what is buffered, in one step: no value pushed meanwhile is left for `next()`.
    func cancel() {
        end(droppingBuffered: true)
    }

    private func end(droppingBuffered: Bool) {
        let (consumers, discarded) = lock.withLock { () -> ([CheckedContinuation<Value?, Never>], [Value?]) in
            isFinished = true
            // Consumers wait only while nothing is buffered.
            defer { self.consumers = [] }
            guard droppingBuffered else { return (self.consumers, []) }
            defer {
                waiting = []
                head = 0
            }
            return (self.consumers, waiting)
        }
        // The buffered values go here, after unlocking.
        withExtendedLifetime(discarded) {}
        for consumer in consumers { consumer.resume(returning: nil) }
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
            if let value = takeHead() { return .value(value) }
            if isFinished { return .finished }
            if let consumer { consumers.append(consumer) }
            return .wait
        }
    }

    /// Lock held. Takes the oldest waiting value out of its slot (the caller releases it after unlocking), and lets
    /// the empty slots go once they are most of the storage.
    private func takeHead() -> Value? {
        guard head < waiting.count else { return nil }
        let value = waiting[head].take()
        head += 1
        if head == waiting.count {
            waiting.removeAll(keepingCapacity: true)
            head = 0
        } else if head > 32, head * 2 > waiting.count {
            waiting.removeFirst(head)
            head = 0
        }
        return value
    }
}
