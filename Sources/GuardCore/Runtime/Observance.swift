import GuardCoreAtomics

/// One registration for one key path on one object (Foundation's `NSKeyValueObservance`): what it asked for, and
/// whom it notifies. Its kinds: ``ObserverObservance`` (an application's ``KeyValueObserver``, held weakly, as
/// Foundation does), ``ReceiverObservance`` (an ``ObservationReceiver`` the runtime made, or a guard registration
/// made for another backend, held strongly until the observance is removed), and ``GuardRegistration``.
///
/// `isActive` turns false, once, when the observance is removed; deliveries that were already under way check it and
/// drop the notification, so no change made after the removal returned reaches a removed registration (a
/// notification already running on another thread may still be finishing).
///
/// The guard's registrations are observances too (``GuardRegistration`` subclasses this class), so that with
/// GuardCore's runtime behind the guard a registration is one object, and an observance is the ``BackendHandle``
/// ``KVORuntimeBackend`` hands out for a registration.
@usableFromInline
class Observance: BackendHandle, @unchecked Sendable {
    // The first three stored properties are atomic words reached through ``InlineAtomicWords`` only: keep them first.
    /// Word 0: 1 while registered, 0 once removed.
    private var activeWord = gca_word()
    /// Word 1: how many re-wirings of a dotted key path have begun (see ``KeyPathForwarder``).
    private var rewireGenerationWord = gca_word()
    /// Word 2: the subclass's own (a guard registration keeps its ``RegistrationState`` here).
    private var subclassWord = gca_word()

    /// The key path, its keys, and what announces it.
    let info: KeyPathInfo
    let options: KeyValueObservingOptions
    let context: UnsafeMutableRawPointer?
    // The two variables below are written under the table's lock (see each); the run-time exclusivity checks would
    // only cost time.
    /// The table's insertion count when this observance was inserted: a change whose plan began earlier did not see
    /// it (see ``ChangePlan``). Written once under the table's lock, before the observance is visible.
    @exclusivity(unchecked) var insertionEpoch: UInt64 = 0
    /// The forwarder that carries changes from deeper objects of a dotted key path. Guarded by the table's lock.
    @exclusivity(unchecked) var forwarder: KeyPathForwarder?
    /// When the object deinitializes with this observance registered, it is dropped silently (and a receiver hears
    /// about it) instead of being reported as ``KVOMisuse/Kind/deallocatedWhileObserved``. Set for the guard's weakly
    /// held objects and for the runtime's own forwarders and relays.
    let dropsWithObject: Bool
    /// Whether the observance was made on behalf of the guard, which promises more than Foundation does: nothing it
    /// causes reaches the ``RuntimeMonitor/misusePolicy`` (an unknown key along its chain reads as `nil` and is
    /// reported to the receiver with ``ObservationReceiver/observedKeyPathBecameUnavailable()`` instead), and it
    /// hears about a change that was already under way when it was inserted (see ``ChangePlan``). `false` for the
    /// application's own `addObserver`, which behaves exactly like Foundation, failure modes included.
    let isGuarded: Bool
    /// Whether a change that was already under way when the observance was inserted still reaches it (see
    /// ``ChangePlan``): the guard's registrations and their forwarders do; the application's own observances do not
    /// (Foundation's behaviour), and neither do a dependent key's relays, which read the dependent values themselves
    /// and so cannot take part in a change that already stored its new value. `isGuarded` unless given.
    let joinsChangesUnderWay: Bool

    init(
        info: KeyPathInfo, options: KeyValueObservingOptions, context: UnsafeMutableRawPointer?, dropsWithObject: Bool,
        isGuarded: Bool, joinsChangesUnderWay: Bool? = nil
    ) {
        self.info = info
        self.options = options
        self.context = context
        self.dropsWithObject = dropsWithObject
        self.isGuarded = isGuarded
        self.joinsChangesUnderWay = joinsChangesUnderWay ?? isGuarded
        active.store(1, ordering: .relaxed)
        SchedulePoints.created(self)
    }

    var keyPath: String { info.keyPath }

    /// Whether the key path has more than one key.
    var isDotted: Bool { info.isDotted }

    private var active: AtomicWord {
        InlineAtomicWords.word(0, of: self)
    }

    /// Counts re-wirings of this observance's dotted key path; see ``KeyPathForwarder/rewire(_:of:)``.
    var rewireGeneration: AtomicWord {
        InlineAtomicWords.word(1, of: self)
    }

    var isActive: Bool {
        SchedulePoints.access(self, .observanceActive, .read)
        return active.load(ordering: .acquiring) != 0
    }

    /// Marks the observance removed. Returns `false` if it already was.
    func deactivate() -> Bool {
        SchedulePoints.access(self, .observanceActive, .write)
        return active.exchange(0) != 0
    }

    // MARK: What each kind does

    /// Sends `change` to whoever this observance notifies, or drops it if the observance was removed meanwhile.
    func deliver(_ change: KeyValueChange, from object: KVOObject) {
        preconditionFailure("Observance is abstract")
    }

    /// Tells a receiver that the object went away with this observance registered.
    func announceObjectDeinit() {}

    /// Tells a receiver that the dotted key path cannot be followed on the current objects.
    func announceChainBroken() {}

    /// Whether notifications of this observance reach a dependent key's ``DependencyRelay``: it is a relay's
    /// registration, or a forwarder's whose chain ends at one (see ``AnnouncementScope``).
    var leadsToRelay: Bool { false }

    /// The type of the observer (or receiver), for messages.
    var observerType: Any.Type {
        preconditionFailure("Observance is abstract")
    }

    /// The address of the observer (or receiver), for messages and for matching removals.
    var observerAddress: UInt {
        preconditionFailure("Observance is abstract")
    }

    // MARK: Messages

    var observerText: String {
        ObjectDescription.describe(type: observerType, address: observerAddress)
    }

    /// Foundation's observation-info line for this observance.
    var infoLine: String {
        "<Observance: Observer: \(ObjectDescription.hex(observerAddress)) (\(ObjectDescription.typeName(observerType))), "
            + "Key path: \(keyPath), Options: \(options) Context: \(ObjectDescription.context(context))>"
    }
}
