/// Puts the guard in front of GuardCore's own runtime: observed objects are ``KVOObject``s.
public struct KVORuntimeBackend: KeyValueObservingBackend {
    /// Creates the backend; it has no state of its own.
    public init() {}

    /// `true` for a ``KVOObject`` and a well-formed key path whose keys it knows (checked along the current chain
    /// of a dotted path), without reporting a runtime misuse.
    public func canObserve(_ object: AnyObject, forKeyPath keyPath: String) -> Bool {
        guard let object = object as? KVOObject, KeyPathSyntax.isWellFormed(keyPath) else { return false }
        return object.isKnownKeyPathAlongCurrentChain(keyPath)
    }

    /// Registers through the runtime. Returns `nil`, without reporting a runtime misuse, when
    /// ``canObserve(_:forKeyPath:)`` says no.
    public func addObserver(
        _ receiver: any ObservationReceiver, to object: AnyObject, forKeyPath keyPath: String,
        options: KeyValueObservingOptions, context: UnsafeMutableRawPointer?, dropsWithObject: Bool
    ) -> (any BackendHandle)? {
        guard canObserve(object, forKeyPath: keyPath), let object = object as? KVOObject else { return nil }
        let bridge = RuntimeObserverBridge(receiver: receiver)
        let onDeinit: (@Sendable () -> Void)? =
            dropsWithObject ? { @Sendable [weak bridge] in bridge?.objectDidDeinit() ?? () } : nil
        guard
            let observance = object.register(
                bridge, forKeyPath: keyPath, options: options, context: context, dropsWithObject: dropsWithObject,
                onObjectDeinit: onDeinit, reportsUnknownKey: false)
        else { return nil }
        return RuntimeBackendHandle(bridge: bridge, observance: observance)
    }

    /// Unregisters through the runtime; a registration the runtime already dropped is ignored.
    public func removeObservation(_ observation: any BackendHandle, from object: AnyObject) {
        guard let observation = observation as? RuntimeBackendHandle, let object = object as? KVOObject else { return }
        object.unregister(observation.observance)
    }
}

/// The runtime-side observer of one guard registration. The runtime holds it weakly and the
/// ``RuntimeBackendHandle`` strongly; it holds the guard's receiver weakly.
final class RuntimeObserverBridge: KeyValueObserver, @unchecked Sendable {
    private weak var receiver: (any ObservationReceiver)?

    init(receiver: any ObservationReceiver) {
        self.receiver = receiver
    }

    func observeValue(
        forKeyPath keyPath: String, of object: KVOObject, change: KeyValueChange, context: UnsafeMutableRawPointer?
    ) {
        receiver?.receive(change, of: object)
    }

    func objectDidDeinit() {
        receiver?.observedObjectDidDeinit()
    }
}

/// The guard's handle to a runtime registration.
final class RuntimeBackendHandle: BackendHandle, @unchecked Sendable {
    let bridge: RuntimeObserverBridge
    let observance: Observance

    init(bridge: RuntimeObserverBridge, observance: Observance) {
        self.bridge = bridge
        self.observance = observance
    }
}

extension KVOObject {
    /// Whether each key of `keyPath` is known, following the chain as far as it currently exists (a `nil`
    /// intermediate ends the check successfully: there is nothing deeper to check yet).
    func isKnownKeyPathAlongCurrentChain(_ keyPath: String) -> Bool {
        let first = ObservedClassInfo.firstKey(of: keyPath)
        guard isKnownKey(first) else { return false }
        guard first.count < keyPath.count else { return true }
        let rest = String(keyPath.dropFirst(first.count + 1))
        guard let next = value(forKey: first) else { return true }
        guard let nextObject = next as? KVOObject else { return false }
        return nextObject.isKnownKeyPathAlongCurrentChain(rest)
    }
}
