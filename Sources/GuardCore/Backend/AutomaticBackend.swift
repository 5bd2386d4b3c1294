#if canImport(ObjectiveC)
import Foundation
#endif

/// The default backend of every ``ObservationController``: GuardCore's runtime for ``KVOObject``s and, on Apple
/// platforms, Foundation's KVO for `NSObject`s (``NSObjectBackend``). One controller can observe both kinds.
public struct AutomaticBackend: KeyValueObservingBackend {
    private let runtime = KVORuntimeBackend()
    #if canImport(ObjectiveC)
    private let foundation = NSObjectBackend()
    #endif

    /// Creates the backend; it has no state of its own.
    public init() {}

    /// Asks the backend for `object`'s kind; `false` for any other object.
    public func canObserve(_ object: AnyObject, forKeyPath keyPath: String) -> Bool {
        backend(for: object)?.canObserve(object, forKeyPath: keyPath) ?? false
    }

    /// Registers through the backend for `object`'s kind; `nil` for any other object.
    public func addObserver(
        _ receiver: any ObservationReceiver, to object: AnyObject, forKeyPath keyPath: String,
        options: KeyValueObservingOptions, context: UnsafeMutableRawPointer?, dropsWithObject: Bool
    ) -> (any BackendHandle)? {
        backend(for: object)?.addObserver(
            receiver, to: object, forKeyPath: keyPath, options: options, context: context,
            dropsWithObject: dropsWithObject)
    }

    /// Removes through the backend for `object`'s kind (each ignores handles it did not make).
    public func removeObservation(_ observation: any BackendHandle, from object: AnyObject) {
        backend(for: object)?.removeObservation(observation, from: object)
    }

    /// Reads through the backend for `object`'s kind; `nil` for any other object.
    public func currentValue(of object: AnyObject, forKeyPath keyPath: String) -> Any? {
        backend(for: object)?.currentValue(of: object, forKeyPath: keyPath)
    }

    private func backend(for object: AnyObject) -> (any KeyValueObservingBackend)? {
        if object is KVOObject { return runtime }
        #if canImport(ObjectiveC)
        if object is NSObject { return foundation }
        #endif
        return nil
    }
}
