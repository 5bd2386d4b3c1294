/// An observance of an application's ``KeyValueObserver`` (`addObserver(_:forKeyPath:options:context:)`), which it
/// holds weakly, as Foundation holds observers unretained.
final class ObserverObservance: Observance, @unchecked Sendable {
    private weak var observer: (any KeyValueObserver)?
    private let recordedObserverType: Any.Type
    private let recordedObserverAddress: UInt

    init(
        observer: any KeyValueObserver, info: KeyPathInfo, options: KeyValueObservingOptions,
        context: UnsafeMutableRawPointer?
    ) {
        self.observer = observer
        self.recordedObserverType = type(of: observer)
        self.recordedObserverAddress = ObjectDescription.address(of: observer)
        super.init(info: info, options: options, context: context, dropsWithObject: false, isGuarded: false)
    }

    override var observerType: Any.Type { recordedObserverType }
    override var observerAddress: UInt { recordedObserverAddress }

    /// Sends `change` to the observer. An observer that is gone while still registered is the misuse
    /// ``KVOMisuse/Kind/observerDeallocated``.
    override func deliver(_ change: KeyValueChange, from object: KVOObject) {
        // Take the strong reference first, then check the flag: a remover deactivates before it can release the
        // observer, so "observer gone but still active" is a real missing removal, never a race with one.
        guard let observer else {
            if isActive {
                RuntimeMonitor.handle(
                    MisuseMessages.observerDeallocated(
                        observerType: recordedObserverType, observerAddress: recordedObserverAddress, object: object,
                        keyPath: keyPath))
            }
            return
        }
        guard isActive else { return }
        SchedulePoints.reach(.runtimeBeforeCallback, self)
        observer.observeValue(forKeyPath: keyPath, of: object, change: change, context: context)
    }
}
