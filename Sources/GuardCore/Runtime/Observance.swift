import GuardCoreAtomics

/// One registration of one observer for one key path on one object (Foundation's `NSKeyValueObservance`).
///
/// The observer is held weakly. `isActive` turns false, once, when the observance is removed; deliveries that
/// were already under way check it and drop the notification, so nothing reaches a removed registration after
/// `removeObserver` returned.
final class Observance: @unchecked Sendable {
    /// Word 0 (see ``InlineAtomicWords``; keep it the first stored property): 1 while registered, 0 once removed.
    private var activeWord = gca_word()
    weak var observer: (any KeyValueObserver)?
    let observerType: Any.Type
    let observerAddress: UInt
    let keyPath: String
    let options: KeyValueObservingOptions
    let context: UnsafeMutableRawPointer?
    /// Set for registrations made on behalf of the guard or of a dotted key path: when the object deinitializes they
    /// are dropped silently (and `onObjectDeinit` runs) instead of being reported as misuse.
    let dropsWithObject: Bool
    let onObjectDeinit: (@Sendable () -> Void)?
    /// The forwarder that carries changes from deeper objects of a dotted key path. Guarded by the table's lock.
    var forwarder: KeyPathForwarder?

    init(
        observer: any KeyValueObserver, keyPath: String, options: KeyValueObservingOptions,
        context: UnsafeMutableRawPointer?, dropsWithObject: Bool, onObjectDeinit: (@Sendable () -> Void)?
    ) {
        self.observer = observer
        self.observerType = type(of: observer)
        self.observerAddress = ObjectDescription.address(of: observer)
        self.keyPath = keyPath
        self.isDotted = keyPath.utf8.contains(UInt8(ascii: "."))
        self.options = options
        self.context = context
        self.dropsWithObject = dropsWithObject
        self.onObjectDeinit = onObjectDeinit
        active.store(1, ordering: .relaxed)
    }

    private var active: AtomicWord {
        InlineAtomicWords.word(0, of: self)
    }

    var isActive: Bool {
        active.load(ordering: .acquiring) != 0
    }

    /// Marks the observance removed. Returns `false` if it already was.
    func deactivate() -> Bool {
        active.exchange(0) != 0
    }

    /// Whether the key path has more than one key (computed once: deliveries ask for every change).
    let isDotted: Bool

    /// Sends `change` to the observer, or drops it if the observance was removed meanwhile, or reports
    /// ``KVOMisuse/Kind/observerDeallocated`` if the observer is gone but still registered.
    func deliver(_ change: KeyValueChange, from object: KVOObject) {
        // Take the strong reference first, then check the flag: a remover deactivates before it can release the
        // observer, so "observer gone but still active" is a real missing removal, never a race with one.
        guard let observer else {
            if isActive {
                RuntimeMonitor.handle(
                    MisuseMessages.observerDeallocated(
                        observerType: observerType, observerAddress: observerAddress, object: object, keyPath: keyPath))
            }
            return
        }
        guard isActive else { return }
        SchedulePoints.reach(.runtimeBeforeCallback)
        observer.observeValue(forKeyPath: keyPath, of: object, change: change, context: context)
    }

    /// The change as this observance sees it: its own key path, and old / new only if its options ask for them.
    func tailored(_ event: ChangeEvent, isPrior: Bool) -> KeyValueChange {
        KeyValueChange(
            kind: event.kind, keyPath: keyPath,
            newValue: !isPrior && options.contains(.new) ? event.newValue : nil,
            oldValue: options.contains(.old) ? event.oldValue : nil,
            indexes: event.indexes, isPrior: isPrior)
    }

    var observerText: String {
        ObjectDescription.describe(type: observerType, address: observerAddress)
    }

    /// Foundation's observation-info line for this observance.
    var infoLine: String {
        "<Observance: Observer: \(ObjectDescription.hex(observerAddress)) (\(ObjectDescription.typeName(observerType))), "
            + "Key path: \(keyPath), Options: \(options) Context: \(ObjectDescription.context(context))>"
    }
}
