/// Wraps a backend to learn when a weakly held observed object deinitializes: the token and async-sequence APIs end
/// on it. Everything else is passed through unchanged.
struct DeinitReportingBackend: KeyValueObservingBackend {
    let base: any KeyValueObservingBackend
    let onObjectDeinit: @Sendable () -> Void

    func canObserve(_ object: AnyObject, forKeyPath keyPath: String) -> Bool {
        base.canObserve(object, forKeyPath: keyPath)
    }

    func addObserver(
        _ receiver: any ObservationReceiver, to object: AnyObject, forKeyPath keyPath: String,
        options: KeyValueObservingOptions, context: UnsafeMutableRawPointer?, dropsWithObject: Bool
    ) -> (any BackendHandle)? {
        let relay = ReceiverRelay(receiver: receiver, onObjectDeinit: onObjectDeinit)
        guard
            let observation = base.addObserver(
                relay, to: object, forKeyPath: keyPath, options: options, context: context,
                dropsWithObject: dropsWithObject)
        else { return nil }
        return RelayedObservation(base: observation, relay: relay)
    }

    func removeObservation(_ observation: any BackendHandle, from object: AnyObject) {
        guard let observation = observation as? RelayedObservation else { return }
        base.removeObservation(observation.base, from: object)
    }

    func currentValue(of object: AnyObject, forKeyPath keyPath: String) -> Any? {
        base.currentValue(of: object, forKeyPath: keyPath)
    }
}

/// Stands between the base backend and the guard's receiver. A backend may hold receivers weakly; the
/// ``RelayedObservation`` the guard keeps holds the relay.
private final class ReceiverRelay: ObservationReceiver, @unchecked Sendable {
    private weak var receiver: (any ObservationReceiver)?
    private let onObjectDeinit: @Sendable () -> Void

    init(receiver: any ObservationReceiver, onObjectDeinit: @escaping @Sendable () -> Void) {
        self.receiver = receiver
        self.onObjectDeinit = onObjectDeinit
    }

    func receive(_ change: KeyValueChange, of object: AnyObject) {
        receiver?.receive(change, of: object)
    }

    func observedObjectDidDeinit() {
        receiver?.observedObjectDidDeinit()
        onObjectDeinit()
    }

    func observedKeyPathBecameUnavailable() {
        receiver?.observedKeyPathBecameUnavailable()
    }
}

private final class RelayedObservation: BackendHandle, @unchecked Sendable {
    let base: any BackendHandle
    let relay: ReceiverRelay

    init(base: any BackendHandle, relay: ReceiverRelay) {
        self.base = base
        self.relay = relay
    }
}
