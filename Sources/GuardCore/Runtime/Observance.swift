import GuardCoreAtomics

/// One registration of one observer for one key path on one object (Foundation's `NSKeyValueObservance`).
///
/// The observer is held weakly. `isActive` turns false, once, when the observance is removed; deliveries that were
/// already under way check it and drop the notification, so no change made after `removeObserver` returned reaches
/// a removed registration (a notification already running on another thread may still be finishing).
final class Observance: @unchecked Sendable {
    // The first two stored properties are atomic words reached through ``InlineAtomicWords`` only: keep them first.
    /// Word 0: 1 while registered, 0 once removed.
    private var activeWord = gca_word()
    /// Word 1: how many re-wirings of a dotted key path have begun (see ``KeyPathForwarder``).
    private var rewireGenerationWord = gca_word()

    weak var observer: (any KeyValueObserver)?
    let observerType: Any.Type
    let observerAddress: UInt
    let keyPath: String
    let options: KeyValueObservingOptions
    let context: UnsafeMutableRawPointer?
    /// When the object deinitializes with this observance registered, it is dropped silently (and a
    /// ``ObservanceEventListener`` observer hears about it) instead of being reported as
    /// ``KVOMisuse/Kind/deallocatedWhileObserved``. Set for the guard's weakly held objects and for the runtime's own
    /// forwarders and relays.
    let dropsWithObject: Bool
    /// Whether the observance was made on behalf of the guard, which promises more than Foundation does: nothing it
    /// causes reaches the ``RuntimeMonitor/misusePolicy`` (an unknown key along its chain reads as `nil` and is
    /// reported to the observer as an ``ObservanceEventListener`` event instead), and it hears about a change that
    /// was already under way when it was inserted (see ``ChangePlan``). `false` for the application's own
    /// `addObserver`, which behaves exactly like Foundation, failure modes included.
    let isGuarded: Bool
    /// Whether the key path has more than one key (computed once: deliveries ask for every change).
    let isDotted: Bool
    /// The table's insertion count when this observance was inserted: a change whose plan began earlier did not see
    /// it (see ``ChangePlan``). Written once under the table's lock, before the observance is visible.
    var insertionEpoch: UInt64 = 0
    /// The forwarder that carries changes from deeper objects of a dotted key path. Guarded by the table's lock.
    var forwarder: KeyPathForwarder?

    init(
        observer: any KeyValueObserver, keyPath: String, options: KeyValueObservingOptions,
        context: UnsafeMutableRawPointer?, dropsWithObject: Bool, isGuarded: Bool
    ) {
        self.observer = observer
        self.observerType = type(of: observer)
        self.observerAddress = ObjectDescription.address(of: observer)
        self.keyPath = keyPath
        self.isDotted = KeyPathSyntax.isDotted(keyPath)
        self.options = options
        self.context = context
        self.dropsWithObject = dropsWithObject
        self.isGuarded = isGuarded
        active.store(1, ordering: .relaxed)
    }

    private var active: AtomicWord {
        InlineAtomicWords.word(0, of: self)
    }

    /// Counts re-wirings of this observance's dotted key path; see ``KeyPathForwarder/rewire(_:of:)``.
    var rewireGeneration: AtomicWord {
        InlineAtomicWords.word(1, of: self)
    }

    var isActive: Bool {
        active.load(ordering: .acquiring) != 0
    }

    /// Marks the observance removed. Returns `false` if it already was.
    func deactivate() -> Bool {
        active.exchange(0) != 0
    }

    /// Sends `change` to the observer, or drops it if the observance was removed meanwhile. An observer that is gone
    /// while still registered is the misuse ``KVOMisuse/Kind/observerDeallocated`` (for a guarded observance the
    /// notification is dropped silently).
    func deliver(_ change: KeyValueChange, from object: KVOObject) {
        // Take the strong reference first, then check the flag: a remover deactivates before it can release the
        // observer, so "observer gone but still active" is a real missing removal, never a race with one.
        guard let observer else {
            if isActive, !isGuarded {
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

    /// Tells an observer that listens for them that the object went away with this observance registered.
    func announceObjectDeinit() {
        (observer as? any ObservanceEventListener)?.observedObjectDidDeinit()
    }

    /// Tells an observer that listens for them that the dotted key path cannot be followed on the current objects.
    func announceChainBroken() {
        (observer as? any ObservanceEventListener)?.observedKeyPathBecameUnavailable()
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

/// What an observer that the runtime creates for itself (the guard's bridge, a dotted key path's forwarder) hears
/// about its observances besides notifications. Called outside every runtime lock.
protocol ObservanceEventListener: AnyObject {
    /// The observed object deinitialized and dropped the observance (only for observances that drop with their
    /// object).
    func observedObjectDidDeinit()
    /// A dotted key path's chain reached an object that does not have the next key (only for guarded observances).
    func observedKeyPathBecameUnavailable()
}
