extension KeyValueObservable {
    /// Observes a Swift key path of this object until the returned token is invalidated or released, with the
    /// change's values typed: `NSObject.observe(_:options:changeHandler:)` behind the guard.
    ///
    /// See ``ObservationToken`` for the guarantees. A key path that has no string name (see
    /// ``KeyValueObservable``) gives a token whose ``ObservationToken/result`` is invalid, with a diagnostic event.
    ///
    /// Inlinable, so the handler that types each change for `changeHandler` is specialized for the caller's `Value`
    /// (unspecialized, it looks `ObservedChange<Value>`'s type up on every notification).
    @inlinable
    public func guardedObserve<Value>(
        _ keyPath: KeyPath<Self, Value>, options: KeyValueObservingOptions = [],
        file: String = #fileID, line: UInt = #line,
        changeHandler: @escaping @Sendable (Self, ObservedChange<Value>) -> Void
    ) -> ObservationToken {
        ObservationToken(
            observing: self, keyPath: keyPathString(for: keyPath),
            description: KeyNameProbe.readableDescription(of: keyPath, on: self), options: options,
            backend: KVORuntimeBackend(), file: file, line: line,
            handler: { object, change in changeHandler(object, ObservedChange(change)) })
    }

    /// Observes a string key path of this object until the returned token is invalidated or released.
    public func guardedObserve(
        keyPath: String, options: KeyValueObservingOptions = [], file: String = #fileID, line: UInt = #line,
        changeHandler: @escaping @Sendable (Self, KeyValueChange) -> Void
    ) -> ObservationToken {
        ObservationToken(
            observing: self, keyPath: keyPath, description: keyPath, options: options, backend: KVORuntimeBackend(),
            file: file, line: line, handler: changeHandler)
    }

    /// The values of a Swift key path of this object as an asynchronous sequence: the current value first, then
    /// the value after each change. See ``ObservedValues`` for when it ends and what a slow consumer gets. A key path
    /// with a force unwrap (`\.link!.age`) is read through its string name, never evaluated, and yields no value
    /// while what it unwraps is `nil` (evaluating it would trap).
    public func values<Value: Sendable>(
        of keyPath: KeyPath<Self, Value>, bufferingNewest limit: Int = 1, file: String = #fileID, line: UInt = #line
    ) -> ObservedValues<Value> {
        let name = keyPathString(for: keyPath)
        let description = name == nil ? KeyNameProbe.readableDescription(of: keyPath, on: self) : ""
        var read: (@Sendable (Self) -> Value?)?
        if let name, KeyNameProbe.hasForceUnwrap(keyPath) {
            read = { object in KeyValueReading.value(of: object, forKeyPath: name, reportingMisuse: false) as? Value }
        }
        return ObservedValues.observing(
            self, keyPath: keyPath, name: name, description: description, limit: limit, backend: KVORuntimeBackend(),
            file: file, line: line, read: read)
    }
}

/// A weak reference carried into a `@Sendable` closure. Only the reference crosses threads; what is done with the
/// object is the caller's business (GuardCore's observation API is thread-safe).
struct UncheckedWeakReference<Object: AnyObject>: @unchecked Sendable {
    private(set) weak var value: Object?

    init(_ value: Object) {
        self.value = value
    }
}
