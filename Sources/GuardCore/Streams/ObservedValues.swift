/// A property's values as an asynchronous sequence: the current value first, then the value after each change.
///
/// ```swift
/// for await age in profile.values(of: \.age) {
///     label.text = "\(age)"
/// }
/// ```
///
/// - **Start.** Each iterator observes on its own, from the moment it is made (`for await` makes one), with
///   `[.initial, .new]` through the guard; two loops over one sequence are two observations.
/// - **End.** The sequence ends (after the values still buffered) when the observed object deinitializes; it ends at
///   once when the iterating task is cancelled. Dropping the iterator (leaving the loop) ends the observation. The
///   object is held weakly, so a running loop never keeps it alive; if it is gone when the iterator is made, or the
///   key path cannot be observed (a diagnostic event), the sequence is empty.
/// - **Slow consumer.** Values the consumer has not taken yet wait in a buffer of at most `limit` values (at least
///   1); when a new value arrives and the buffer is full, the oldest waiting value is dropped. The default limit of 1
///   means a slow consumer skips intermediate values and always gets the latest one; nothing ever grows without
///   bound.
public struct ObservedValues<Value: Sendable>: AsyncSequence, Sendable {
    /// The property's value.
    public typealias Element = Value

    private let limit: Int
    private let start: @Sendable (ObservedValuesBuffer<Value>) -> ObservationToken?

    /// `start` begins observing into the buffer and returns the observation's token, or `nil` if the object is gone.
    init(limit: Int, start: @escaping @Sendable (ObservedValuesBuffer<Value>) -> ObservationToken?) {
        self.limit = Swift.max(1, limit)
        self.start = start
    }

    /// Starts observing; see ``ObservedValues`` for the rules.
    public func makeAsyncIterator() -> AsyncIterator {
        let buffer = ObservedValuesBuffer<Value>(limit: limit)
        let token = start(buffer)
        if token?.isActive != true { buffer.finish() }
        return AsyncIterator(subscription: ObservedValuesSubscription(buffer: buffer, token: token))
    }

    /// Takes values from one observation.
    public struct AsyncIterator: AsyncIteratorProtocol, Sendable {
        let subscription: ObservedValuesSubscription<Value>

        /// The next value, waiting for a change if none is buffered; `nil` once the sequence has ended.
        public mutating func next() async -> Value? {
            let subscription = subscription
            return await withTaskCancellationHandler {
                await subscription.buffer.next()
            } onCancel: {
                subscription.cancel()
            }
        }
    }
}

extension ObservedValues {
    /// The values of the key path named `name` (`nil` if it has none) of `object`, observed through `backend`
    /// with `[.initial, .new]` each time an iterator is made. The object is held weakly.
    static func observing<Object: AnyObject>(
        _ object: Object, keyPath name: String?, description: String, limit: Int,
        backend: any KeyValueObservingBackend, file: String, line: UInt
    ) -> ObservedValues<Value> {
        let object = UncheckedWeakReference(object)
        return ObservedValues(limit: limit) { buffer in
            guard let object = object.value else { return nil }
            return ObservationToken(
                observing: object, keyPath: name, description: description, options: [.initial, .new],
                backend: backend, file: file, line: line, onObjectDeinit: { buffer.finish() },
                handler: { _, change in buffer.push(change.newValue(as: Value.self)) })
        }
    }
}

/// One iterator's observation: its token and its buffer. Releasing it (with the iterator) ends the observation.
final class ObservedValuesSubscription<Value: Sendable>: Sendable {
    let buffer: ObservedValuesBuffer<Value>
    private let token: ObservationToken?

    init(buffer: ObservedValuesBuffer<Value>, token: ObservationToken?) {
        self.buffer = buffer
        self.token = token
    }

    deinit {
        token?.invalidate()
        buffer.finish()
    }

    /// The iterating task was cancelled: stop now, dropping what is buffered.
    func cancel() {
        buffer.cancel()
        token?.invalidate()
    }
}
