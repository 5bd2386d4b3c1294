#if canImport(ObjectiveC)
import Foundation

/// Gives every `NSObject` the token and async-sequence APIs (Apple platforms only). You never conform yourself.
public protocol GuardedNSObjectObserving: NSObject {}

extension NSObject: GuardedNSObjectObserving {}

extension GuardedNSObjectObserving {
    /// Observes an `@objc` key path of this object until the returned token is invalidated or released, with the
    /// change's values typed: `observe(_:options:changeHandler:)` behind the guard. See ``ObservationToken``.
    public func guardedObserve<Value>(
        _ keyPath: KeyPath<Self, Value>, options: KeyValueObservingOptions = [],
        file: String = #fileID, line: UInt = #line,
        changeHandler: @escaping @Sendable (Self, ObservedChange<Value>) -> Void
    ) -> ObservationToken {
        ObservationToken(
            observing: self, keyPath: keyPath._kvcKeyPathString, description: String(describing: keyPath),
            options: options, backend: NSObjectBackend(), file: file, line: line,
            handler: { object, change in changeHandler(object, ObservedChange(change)) })
    }

    /// Observes a string key path of this object until the returned token is invalidated or released.
    public func guardedObserve(
        keyPath: String, options: KeyValueObservingOptions = [], file: String = #fileID, line: UInt = #line,
        changeHandler: @escaping @Sendable (Self, KeyValueChange) -> Void
    ) -> ObservationToken {
        ObservationToken(
            observing: self, keyPath: keyPath, description: keyPath, options: options, backend: NSObjectBackend(),
            file: file, line: line, handler: changeHandler)
    }

    /// The values of an `@objc` key path of this object as an asynchronous sequence: the current value first, then
    /// the value after each change. See ``ObservedValues`` for when it ends and what a slow consumer gets.
    public func values<Value: Sendable>(
        of keyPath: KeyPath<Self, Value>, bufferingNewest limit: Int = 1, file: String = #fileID, line: UInt = #line
    ) -> ObservedValues<Value> {
        ObservedValues.observing(
            self, keyPath: keyPath, name: keyPath._kvcKeyPathString, description: String(describing: keyPath),
            limit: limit, backend: NSObjectBackend(), file: file, line: line)
    }
}
#endif
