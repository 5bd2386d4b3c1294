#if canImport(ObjectiveC)
import Foundation

/// The observe methods for `NSObject`s (Apple platforms only). The controller's backend must understand them: the
/// default ``AutomaticBackend`` does, and so does ``NSObjectBackend``.
extension ObservationController {
    /// Observes `keyPath` on an `NSObject` and calls `handler` with the observer, the object and the change. Results
    /// and diagnostics as for ``KVOObject``s; a key path Foundation would raise on is
    /// ``ObserveResult/invalid(_:)``.
    @discardableResult
    public func observe<Object: NSObject>(
        _ object: Object?, keyPath: String, options: KeyValueObservingOptions = [],
        file: String = #fileID, line: UInt = #line,
        handler: @escaping @Sendable (_ observer: Observer, _ object: Object, _ change: KeyValueChange) -> Void
    ) -> ObserveResult {
        registerTyped(object, keyPath: keyPath, options: options, context: nil, file: file, line: line, handler: handler)
    }

    /// Observes several key paths of an `NSObject` with one handler; one result per key path, in order. An empty list
    /// is an invalid argument (one diagnostic event, no results).
    @discardableResult
    public func observe<Object: NSObject>(
        _ object: Object?, keyPaths: [String], options: KeyValueObservingOptions = [],
        file: String = #fileID, line: UInt = #line,
        handler: @escaping @Sendable (_ observer: Observer, _ object: Object, _ change: KeyValueChange) -> Void
    ) -> [ObserveResult] {
        registerTyped(object, keyPaths: keyPaths, options: options, file: file, line: line, handler: handler)
    }

    /// Observes an `@objc` key path of an `NSObject` (`\.name` of an `@objc dynamic var name`), with the change's
    /// values typed. A key path Objective-C cannot name is an invalid argument.
    @discardableResult
    public func observe<Object: NSObject, Value>(
        _ object: Object?, _ keyPath: KeyPath<Object, Value>, options: KeyValueObservingOptions = [],
        file: String = #fileID, line: UInt = #line,
        handler: @escaping @Sendable (_ observer: Observer, _ object: Object, _ change: ObservedChange<Value>) -> Void
    ) -> ObserveResult {
        registerNamed(
            object, name: keyPath._kvcKeyPathString, description: String(describing: keyPath), options: options,
            file: file, line: line, handler: handler)
    }

    /// Stops observing an `@objc` key path of an `NSObject`.
    @discardableResult
    public func unobserve<Object: NSObject, Value>(
        _ object: Object?, _ keyPath: KeyPath<Object, Value>, file: String = #fileID, line: UInt = #line
    ) -> UnobserveResult {
        unobserveNamed(
            object, name: keyPath._kvcKeyPathString, description: String(describing: keyPath), file: file, line: line)
    }
}

extension ObservationController where Observer: NSObject {
    /// Observes `keyPath` on an `NSObject` and forwards each notification to the observer's own
    /// `observeValue(forKeyPath:of:change:context:)` with `context`, as FBKVOController's
    /// `observe:keyPath:options:context:` does. The change dictionary is Foundation's (`NSNull` for nil values).
    @discardableResult
    public func observe<Object: NSObject>(
        _ object: Object?, keyPath: String, options: KeyValueObservingOptions = [],
        context: UnsafeMutableRawPointer?, file: String = #fileID, line: UInt = #line
    ) -> ObserveResult {
        registerForwarding(
            object, keyPath: keyPath, options: options, context: context, file: file, line: line
        ) { observer, object, change, context in
            var dictionary: [NSKeyValueChangeKey: Any] = [:]
            for (key, value) in change.foundationChange {
                guard let field = FoundationChangeField(rawValue: key) else { continue }
                dictionary[NSKeyValueChangeKey(field)] = value
            }
            (observer as? NSObject)?.observeValue(forKeyPath: keyPath, of: object, change: dictionary, context: context)
        }
    }
}
#endif
