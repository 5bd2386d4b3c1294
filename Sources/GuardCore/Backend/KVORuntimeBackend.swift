/// Puts the guard in front of GuardCore's own runtime: observed objects are ``KVOObject``s.
///
/// Registrations made through it never report misuse to the runtime: an unknown key along a dotted key path's chain
/// reads as `nil` and is reported to the guard (``ObservationReceiver/observedKeyPathBecameUnavailable()``) instead.
public struct KVORuntimeBackend: KeyValueObservingBackend {
    /// Creates the backend; it has no state of its own.
    public init() {}

    /// `true` for a ``KVOObject`` and a well-formed key path whose keys it knows (checked along the current chain
    /// of a dotted path), without reporting a runtime misuse.
    public func canObserve(_ object: AnyObject, forKeyPath keyPath: String) -> Bool {
        guard let object = object as? KVOObject, KeyPathSyntax.isWellFormed(keyPath) else { return false }
        return object.isKnownKeyPathAlongCurrentChain(keyPath)
    }

    /// Registers through the runtime (never with `.initial`: the guard delivers that itself). Returns `nil`, without
    /// reporting a runtime misuse, when ``canObserve(_:forKeyPath:)`` says no.
    public func addObserver(
        _ receiver: any ObservationReceiver, to object: AnyObject, forKeyPath keyPath: String,
        options: KeyValueObservingOptions, context: UnsafeMutableRawPointer?, dropsWithObject: Bool
    ) -> (any BackendHandle)? {
        guard canObserve(object, forKeyPath: keyPath), let object = object as? KVOObject else { return nil }
        let bridge = RuntimeObserverBridge(receiver: receiver)
        guard
            let observance = object.register(
                bridge, forKeyPath: keyPath, options: options.subtracting(.initial), context: context,
                dropsWithObject: dropsWithObject, isGuarded: true)
        else { return nil }
        return RuntimeBackendHandle(bridge: bridge, observance: observance)
    }

    /// Unregisters through the runtime; a registration the runtime already dropped is ignored.
    public func removeObservation(_ observation: any BackendHandle, from object: AnyObject) {
        guard let observation = observation as? RuntimeBackendHandle, let object = object as? KVOObject else { return }
        object.unregister(observation.observance)
    }

    /// The value at `keyPath`, read quietly: a chain that cannot be followed reads as `nil`, never as misuse.
    public func currentValue(of object: AnyObject, forKeyPath keyPath: String) -> Any? {
        guard let object = object as? KVOObject else { return nil }
        return KeyValueReading.value(of: object, forKeyPath: keyPath, reportingMisuse: false)
    }
}

/// The runtime-side observer of one guard registration. The runtime holds it weakly and the
/// ``RuntimeBackendHandle`` strongly; it holds the guard's receiver weakly.
final class RuntimeObserverBridge: KeyValueObserver, ObservanceEventListener, @unchecked Sendable {
    private weak var receiver: (any ObservationReceiver)?

    init(receiver: any ObservationReceiver) {
        self.receiver = receiver
    }

    func observeValue(
        forKeyPath keyPath: String, of object: KVOObject, change: KeyValueChange, context: UnsafeMutableRawPointer?
    ) {
        receiver?.receive(change, of: object)
    }

    func observedObjectDidDeinit() {
        receiver?.observedObjectDidDeinit()
    }

    func observedKeyPathBecameUnavailable() {
        receiver?.observedKeyPathBecameUnavailable()
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
    /// intermediate ends the check successfully: there is nothing deeper to check yet). Never reports misuse.
    func isKnownKeyPathAlongCurrentChain(_ keyPath: String) -> Bool {
        let (first, rest) = KeyPathSyntax.split(keyPath)
        guard isKnownKey(first) else { return false }
        guard let rest else { return true }
        guard let next = KeyValueReading.value(of: self, forKey: first, reportingMisuse: false) else { return true }
        guard let nextObject = next as? KVOObject else { return false }
        return nextObject.isKnownKeyPathAlongCurrentChain(rest)
    }
}
