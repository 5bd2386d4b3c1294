/// A property's values as an asynchronous sequence: the current value first, then the value after each change (the
/// whole value, also after a to-many change of an array).
///
/// ```swift
/// for await age in profile.values(of: \.age) {
///     label.text = "\(age)"
/// }
/// ```
///
/// - **Start.** Each iterator observes on its own, from the moment it is made (`for await` makes one), through the
///   guard; two loops over one sequence are two observations. The value after a change is read when the change is
///   announced (on the thread that made it), so the last value a sequence yields is the property's latest, even when
///   a handler changes the property again from inside a notification; and the value read when the observation began
///   comes first unless a change made meanwhile already yielded a value, which is at least as new. (A set that had
///   already begun when the iterator was made, on a property nobody observed then, is not announced at all, as in
///   Foundation: if it stores its value after the first one was read, the sequence has not seen that value until the
///   next change.)
/// - **End.** The sequence ends (after the values still buffered) when the observed object deinitializes; it ends at
///   once when the iterating task is cancelled. Dropping the iterator (leaving the loop) ends the observation. The
///   object is held weakly, so a running loop never keeps it alive; if it is gone (or running its deinit) when the
///   iterator is made, or the key path cannot be observed (a diagnostic event), the sequence is empty.
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
    /// The values at `keyPath` (named `name`, `nil` if it has none) of `object`, observed through `backend` each
    /// time an iterator is made, each read from the object (see ``ObservedValues``) with `read` if given (a value it
    /// cannot give is skipped), else through the key path. The object is held weakly.
    static func observing<Object: AnyObject>(
        _ object: Object, keyPath: KeyPath<Object, Value>, name: String?, description: String, limit: Int,
        backend: any KeyValueObservingBackend, file: String, line: UInt,
        read: (@Sendable (Object) -> Value?)? = nil
    ) -> ObservedValues<Value> {
        let object = UncheckedWeakReference(object)
        let keyPath = UncheckedSendableKeyPath(keyPath)
        let read = read ?? { object in object[keyPath: keyPath.keyPath] }
        return ObservedValues(limit: limit) { buffer in
            guard let observed = object.value else { return nil }
            let token = ObservationToken(
                observing: observed, keyPath: name, description: description, options: [], backend: backend,
                file: file, line: line, onObjectDeinit: { buffer.finish() },
                handler: { object, _ in
                    if let value = read(object) { buffer.push(value) }
                })
            // The registration exists: a change from now on is pushed too, read after it was made.
            if token.isActive, let value = read(observed) { buffer.pushInitial(value) }
            return token
        }
    }
}

/// A key path carried into a `@Sendable` handler; it names a property of a ``KVOObject`` (a chain of `@Observed` or
/// stored properties), which reads no user code.
struct UncheckedSendableKeyPath<Root, Value>: @unchecked Sendable {
    let keyPath: KeyPath<Root, Value>

    init(_ keyPath: KeyPath<Root, Value>) {
        self.keyPath = keyPath
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
