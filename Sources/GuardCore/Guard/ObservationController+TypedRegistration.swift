/// The typed registration helpers every object family's overloads build on (``KVOObject``s here, `NSObject`s on
/// Apple platforms, and the token API): a handler typed for the object's class, and Swift key paths named by
/// whatever can name them.
extension ObservationController {
    /// Registers `handler` for `keyPath` with the object typed as `Object`.
    func registerTyped<Object: AnyObject>(
        _ object: Object?, keyPath: String, options: KeyValueObservingOptions, context: UnsafeMutableRawPointer?,
        file: String, line: UInt, handler: @escaping @Sendable (Observer, Object, KeyValueChange) -> Void
    ) -> ObserveResult {
        register(object, keyPath: keyPath, options: options, context: context, file: file, line: line, handler: handler)
    }

    /// Registers `handler` for a Swift key path whose string name is `name`, with the change's values typed.
    ///
    /// `name` is `nil` when the key path has none: that is an invalid argument (one event, naming the key path by
    /// `description`, rendered only then) unless `object` is `nil`, which is reported as such.
    func registerNamed<Object: AnyObject, Value>(
        _ object: Object?, name: String?, description: @autoclosure () -> String, options: KeyValueObservingOptions,
        file: String, line: UInt, handler: @escaping @Sendable (Observer, Object, ObservedChange<Value>) -> Void
    ) -> ObserveResult {
        guard let name = resolvedName(name, description: description, of: object, file: file, line: line) else {
            return .invalid(.unobservableKeyPath)
        }
        return registerTyped(
            object, keyPath: name, options: options, context: nil, file: file, line: line,
            handler: { observer, object, change in handler(observer, object, ObservedChange(change)) })
    }

    /// Stops observing a Swift key path whose string name is `name` (see
    /// ``registerNamed(_:name:description:options:file:line:handler:)`` for a `nil` name).
    func unobserveNamed(
        _ object: AnyObject?, name: String?, description: @autoclosure () -> String, file: String, line: UInt
    ) -> UnobserveResult {
        guard let name = resolvedName(name, description: description, of: object, file: file, line: line) else {
            return .invalid(.unobservableKeyPath)
        }
        return unobserve(object, keyPath: name, file: file, line: line)
    }

    /// `name`, or for a nil object the key path's description (so the `.nilObject` event that follows does not read
    /// like an empty key path), or `nil` after emitting the invalid-argument event. `description` is called only
    /// when it is used.
    func resolvedName(
        _ name: String?, description: () -> String, of object: AnyObject?, file: String, line: UInt
    ) -> String? {
        guard let object else { return name ?? description() }
        if let name { return name }
        core.emit(
            .invalidArgument, reason: .unobservableKeyPath, object: object, keyPath: description(),
            callSite: .init(file: file, line: line))
        return nil
    }
}

extension ObservationController {
    /// Registers `handler` for each of `keyPaths`, one result per key path; an empty list is an invalid argument.
    func registerTyped<Object: AnyObject>(
        _ object: Object?, keyPaths: [String], options: KeyValueObservingOptions, file: String, line: UInt,
        handler: @escaping @Sendable (Observer, Object, KeyValueChange) -> Void
    ) -> [ObserveResult] {
        register(object, keyPaths: keyPaths, options: options, context: nil, file: file, line: line, handler: handler)
    }

    /// Registers a handler that forwards each notification, with `context`, to the observer's own callback (the
    /// FBKVOController `observe:keyPath:options:context:` shape).
    func registerForwarding(
        _ object: AnyObject?, keyPath: String, options: KeyValueObservingOptions, context: UnsafeMutableRawPointer?,
        file: String, line: UInt,
        forward: @escaping @Sendable (
            _ observer: AnyObject, _ object: AnyObject, _ change: KeyValueChange, _ context: UnsafeMutableRawPointer?
        ) -> Void
    ) -> ObserveResult {
        let context = UncheckedSendablePointer(context)
        return register(
            object, keyPath: keyPath, options: options, context: context.pointer, file: file, line: line,
            handler: { observer, object, change in forward(observer, object, change, context.pointer) })
    }
}
