extension ObservationController {
    /// Observes `keyPath` on `object` and calls `handler` with the observer, the object and the change.
    ///
    /// Returns ``ObserveResult/registered``, or (each with its diagnostic event) ``ObserveResult/duplicate`` if this
    /// controller already observes that key path of that object (the first registration stays as it was), or
    /// ``ObserveResult/invalid(_:)`` for a `nil` object, an object running its deinit, an empty key path, or a key
    /// path the object does not have.
    /// With `.initial`, the handler runs once before this returns, on the calling thread, before any change; changes
    /// that arrive meanwhile are held back and delivered right after it, on the calling thread, before this returns
    /// (see ``ObservationController``).
    @discardableResult @inlinable
    public func observe<Object: KVOObject>(
        _ object: Object?, keyPath: String, options: KeyValueObservingOptions = [],
        file: String = #fileID, line: UInt = #line,
        handler: @escaping @Sendable (_ observer: Observer, _ object: Object, _ change: KeyValueChange) -> Void
    ) -> ObserveResult {
        register(object, keyPath: keyPath, options: options, context: nil, file: file, line: line, handler: handler)
    }

    /// Observes several key paths of `object` with one handler; one result per key path, in order. An empty list is
    /// an invalid argument (one diagnostic event, no results).
    @discardableResult
    public func observe<Object: KVOObject>(
        _ object: Object?, keyPaths: [String], options: KeyValueObservingOptions = [],
        file: String = #fileID, line: UInt = #line,
        handler: @escaping @Sendable (_ observer: Observer, _ object: Object, _ change: KeyValueChange) -> Void
    ) -> [ObserveResult] {
        register(object, keyPaths: keyPaths, options: options, context: nil, file: file, line: line, handler: handler)
    }

    /// Observes a Swift key path of `object`, with the change's values typed. A key path that has no string name
    /// (see ``KeyValueObservable``) is an invalid argument. Inlinable, so the handler that types each change is
    /// specialized for the caller's `Value`.
    @discardableResult @inlinable
    public func observe<Object: KVOObject, Value>(
        _ object: Object?, _ keyPath: KeyPath<Object, Value>, options: KeyValueObservingOptions = [],
        file: String = #fileID, line: UInt = #line,
        handler: @escaping @Sendable (_ observer: Observer, _ object: Object, _ change: ObservedChange<Value>) -> Void
    ) -> ObserveResult {
        guard let name = keyPathName(keyPath, of: object, file: file, line: line) else {
            return .invalid(.unobservableKeyPath)
        }
        return register(
            object, keyPath: name, options: options, context: nil, file: file, line: line,
            handler: { (observer: Observer, object: Object, change: KeyValueChange) in
                handler(observer, object, ObservedChange(change))
            })
    }

    /// Stops observing a Swift key path of `object`.
    @discardableResult
    public func unobserve<Object: KVOObject, Value>(
        _ object: Object?, _ keyPath: KeyPath<Object, Value>, file: String = #fileID, line: UInt = #line
    ) -> UnobserveResult {
        guard let name = keyPathName(keyPath, of: object, file: file, line: line) else {
            return .invalid(.unobservableKeyPath)
        }
        return unobserve(object, keyPath: name, file: file, line: line)
    }

    /// The string key path for `keyPath`, or `nil` after emitting the invalid-argument event when it has none. A
    /// nil object has nothing to resolve against: the key path is named as written, so the `.nilObject` event that
    /// follows does not read like an empty key path.
    @usableFromInline
    func keyPathName<Object: KVOObject, Value>(
        _ keyPath: KeyPath<Object, Value>, of object: Object?, file: String, line: UInt
    ) -> String? {
        guard let object else { return String(describing: keyPath) }
        if let name = object.keyPathString(for: keyPath) { return name }
        core.emit(
            .invalidArgument, reason: .unobservableKeyPath, object: object,
            keyPath: KeyNameProbe.readableDescription(of: keyPath, on: object), callSite: .init(file: file, line: line))
        return nil
    }
}

extension ObservationController where Observer: KeyValueObserver {
    /// Observes `keyPath` on `object` and forwards each notification to the observer's own
    /// ``KeyValueObserver/observeValue(forKeyPath:of:change:context:)`` with `context`.
    @discardableResult
    public func observe<Object: KVOObject>(
        _ object: Object?, keyPath: String, options: KeyValueObservingOptions = [],
        context: UnsafeMutableRawPointer?, file: String = #fileID, line: UInt = #line
    ) -> ObserveResult {
        let handler = Self.forwarding(to: keyPath, context: context)
        return core.observe(
            object, keyPath: keyPath, options: options, context: context, callSite: .init(file: file, line: line),
            makeRegistration: { HandlerRegistration($0, handler: handler) })
    }

    /// Observes several key paths of `object`, forwarding to the observer's own `observeValue`.
    @discardableResult
    public func observe<Object: KVOObject>(
        _ object: Object?, keyPaths: [String], options: KeyValueObservingOptions = [],
        context: UnsafeMutableRawPointer?, file: String = #fileID, line: UInt = #line
    ) -> [ObserveResult] {
        guard !keyPaths.isEmpty else {
            core.emit(
                .invalidArgument, reason: .emptyKeyPathList, object: object, keyPath: nil,
                callSite: .init(file: file, line: line))
            return []
        }
        return keyPaths.map { keyPath in
            observe(object, keyPath: keyPath, options: options, context: context, file: file, line: line)
        }
    }

    private static func forwarding(
        to keyPath: String, context: UnsafeMutableRawPointer?
    ) -> HandlerRegistration<AnyObject, KVOObject>.Handler {
        let context = UncheckedSendablePointer(context)
        return { observer, object, change in
            // A conformance lookup rather than a captured `Observer` type, which is not Sendable.
            (observer as? any KeyValueObserver)?.observeValue(
                forKeyPath: keyPath, of: object, change: change, context: context.pointer)
        }
    }
}

/// A context pointer carried into a `@Sendable` handler. The pointer is only compared and passed back, never
/// dereferenced by the guard.
struct UncheckedSendablePointer: @unchecked Sendable {
    let pointer: UnsafeMutableRawPointer?
    init(_ pointer: UnsafeMutableRawPointer?) { self.pointer = pointer }
}
