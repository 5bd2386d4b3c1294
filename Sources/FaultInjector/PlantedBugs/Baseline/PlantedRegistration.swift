import GuardCore

/// What a baseline registration is keyed by: the controller it belongs to (or `nil` for a table shared by every
/// controller), a name for the object, and the key path. The baseline names an object by its ``StressObject/id``.
struct PlantedRegistrationKey: Hashable, Sendable {
    let owner: ObjectIdentifier?
    let object: String
    let keyPath: String
}

/// One registration of a ``BaselineController``: its runtime-side observer (``PlantedBridge``), the object it
/// observes, and its state, an atomic word as the guard's `RegistrationState` is: changed under its table's lock,
/// except `pending → active`, a compare-and-exchange the observing thread makes once the runtime's add returned,
/// racing with an unobserve's `pending → cancelled` under the lock.
///
/// ```
/// pending ──(runtime add returned)──▶ active ──(unobserve / teardown)──▶ removed
///    └──(unobserve while the runtime add runs, e.g. inside the .initial handler)──▶ cancelled ──▶ removed
/// ```
/// Notifications reach the handler only while `pending` or `active` (the guard's three states). Every access is
/// announced to the schedule hook (``SharedWord/registrationState``), for an explorer of interleavings.
final class PlantedRegistration: @unchecked Sendable {
    enum State: UInt64 {
        case pending, active, cancelled, removed
    }

    let key: PlantedRegistrationKey
    /// The controller that made it.
    let owner: ObjectIdentifier
    let objectID: Int
    let keyPath: String
    let bridge: PlantedBridge
    /// The runtime context this registration is added and removed with (see ``PlantedContext``).
    let context = PlantedContext.next()
    private let stateWord = AtomicCell()
    /// The changes its bridge held back (see ``PlantedBridge/holdsChanges``), in arrival order, each with the change
    /// it came from. Guarded by the table's lock.
    var held: [(change: KeyValueChange, object: StressObject, origin: ChangeOrigin)] = []
    private let strongObject: StressObject?
    private weak var weakObject: StressObject?

    init(key: PlantedRegistrationKey, owner: ObjectIdentifier, object: StressObject, keepsObjectAlive: Bool, keyPath: String, bridge: PlantedBridge) {
        self.key = key
        self.owner = owner
        objectID = object.id
        self.keyPath = keyPath
        self.bridge = bridge
        strongObject = keepsObjectAlive ? object : nil
        weakObject = object
        // Named by who made it, for an explorer (its state is announced).
        SchedulePoints.created(self)
    }

    /// The state now.
    var state: State {
        SchedulePoints.access(self, .registrationState, .read)
        return State(rawValue: UInt64(stateWord.word.loadInt(ordering: .acquiring)))!
    }

    /// Sets the state.
    func set(_ state: State) {
        SchedulePoints.access(self, .registrationState, .write)
        stateWord.word.store(state.rawValue, ordering: .releasing)
    }

    /// Moves to `desired` if the state is `expected`; returns whether it did.
    func transition(from expected: State, to desired: State) -> Bool {
        let exchanged = stateWord.word.compareExchange(expected: expected.rawValue, desired: desired.rawValue).exchanged
        SchedulePoints.access(self, .registrationState, exchanged ? .write : .read)
        return exchanged
    }

    /// The observed object, while it lives.
    var object: StressObject? { strongObject ?? weakObject }

    /// Whether a notification may reach the handler in this state.
    var delivers: Bool { state == .pending || state == .active }
}

/// The runtime-side observer of one registration: hands every notification to its controller class's delivery,
/// which decides whether (and how) it reaches the harness's sink. It is added either through the runtime's
/// application API (a ``KeyValueObserver``) or through ``KVORuntimeBackend`` (an ``ObservationReceiver``); see
/// ``BaselineController/registersJoiningChangesUnderWay(_:)``.
final class PlantedBridge: KeyValueObserver, ObservationReceiver, @unchecked Sendable {
    private let delivery: BaselineController.Type
    private weak var table: PlantedTable?
    /// 1 while a change that reaches the registration waits for its `.initial` notification (an observe with
    /// `.initial` whose controller holds changes back, as the guard does): set before the registration is filed,
    /// cleared under the table's lock once the initial notification and every change held meanwhile were delivered.
    /// Atomic, so a delivery to a registration that holds nothing takes no lock (and no schedule step) for it.
    private let holding = AtomicCell()
    private weak var observer: StressObserver?
    /// `observer`'s identity, as an explorer names its life.
    private let observerIdentity: ObjectIdentifier
    private let sink: DeliverySink

    init(delivery: BaselineController.Type, table: PlantedTable, observer: StressObserver, sink: DeliverySink) {
        self.delivery = delivery
        self.table = table
        self.observer = observer
        self.observerIdentity = ObjectIdentifier(observer)
        self.sink = sink
        // Named by who made it, for an explorer (its holding flag is announced; see ``holdsChanges``).
        SchedulePoints.created(self)
    }

    func observeValue(
        forKeyPath keyPath: String, of object: KVOObject, change: KeyValueChange, context: UnsafeMutableRawPointer?
    ) {
        guard let object = object as? StressObject, let table else { return }
        guard !table.holdBack(change, of: object, for: self) else { return }
        delivery.deliver(change, of: object, through: self, in: table)
    }

    /// A notification of a registration added through ``KVORuntimeBackend``: delivered as one of the application API.
    func receive(_ change: KeyValueChange, of object: AnyObject) {
        guard let object = object as? StressObject, let table else { return }
        guard !table.holdBack(change, of: object, for: self) else { return }
        delivery.deliver(change, of: object, through: self, in: table)
    }

    /// Whether changes that reach the registration wait for its `.initial` notification.
    /// Its accesses are announced as the registration state's (``SharedWord/registrationState``): the flag is part of
    /// the registration's lock-free state, as the guard's holding bit is.
    var holdsChanges: Bool {
        get {
            SchedulePoints.access(self, .registrationState, .read)
            return holding.word.load(ordering: .acquiring) != 0
        }
        set {
            SchedulePoints.access(self, .registrationState, .write)
            holding.word.store(newValue ? 1 : 0, ordering: .releasing)
        }
    }

    /// Never called: the baseline never asks the runtime to drop a registration with its object.
    func observedObjectDidDeinit() {}

    /// Never called: the baseline observes no dotted key path.
    func observedKeyPathBecameUnavailable() {}

    /// Hands the notification to the harness, unless the observer is gone.
    func forward(_ change: KeyValueChange, of object: StressObject) {
        // Loading the weak reference takes the observer (or finds it gone); it goes when this returns.
        SchedulePoints.access(observerIdentity, .lifetime, .read)
        guard let observer else { return }
        defer { SchedulePoints.access(observerIdentity, .lifetime, .drop) }
        forward(change, of: object, to: observer)
    }

    /// Hands the notification to the harness for `observer` (which the caller keeps alive).
    func forward(_ change: KeyValueChange, of object: StressObject, to observer: StressObserver) {
        sink.deliver(observer: observer, object: object, change: change)
    }
}
