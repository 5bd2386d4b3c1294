import GuardCore

/// GuardCore's runtime backend behind another backend that forwards every call to it unchanged (as an auditing or
/// logging backend does), with hooks a test sets to watch or interleave: the guard cannot take its runtime fast path,
/// so the runtime gets the guard's registrations as plain receivers.
struct WrappedRuntimeBackend: KeyValueObservingBackend {
    /// Runs before each add is forwarded, with the add's key path and options.
    var beforeAdd: (@Sendable (_ keyPath: String, _ options: KeyValueObservingOptions) -> Void)?
    /// Runs after each add with the handle the runtime gave out (`nil` if it refused).
    var afterAdd: (@Sendable (_ handle: (any BackendHandle)?) -> Void)?
    /// Runs before each removal is forwarded, with the handle being removed.
    var beforeRemove: (@Sendable (_ handle: any BackendHandle) -> Void)?
    private let runtime = KVORuntimeBackend()

    func canObserve(_ object: AnyObject, forKeyPath keyPath: String) -> Bool {
        runtime.canObserve(object, forKeyPath: keyPath)
    }

    func addObserver(
        _ receiver: any ObservationReceiver, to object: AnyObject, forKeyPath keyPath: String,
        options: KeyValueObservingOptions, context: UnsafeMutableRawPointer?, dropsWithObject: Bool
    ) -> (any BackendHandle)? {
        beforeAdd?(keyPath, options)
        let handle = runtime.addObserver(
            receiver, to: object, forKeyPath: keyPath, options: options, context: context,
            dropsWithObject: dropsWithObject)
        afterAdd?(handle)
        return handle
    }

    func removeObservation(_ observation: any BackendHandle, from object: AnyObject) {
        beforeRemove?(observation)
        runtime.removeObservation(observation, from: object)
    }

    func currentValue(of object: AnyObject, forKeyPath keyPath: String) -> Any? {
        runtime.currentValue(of: object, forKeyPath: keyPath)
    }
}
