import GuardCore

/// The harness side of one observe operation: the sink the system under test delivers to. It records each
/// notification and runs the operation's handler action on the first one; its deinit tells when the system let go
/// of the handler (see ``BulkRelease``). An ``HandlerAction/adopt(object:)``
/// action leaves the adopted object here, so it lives exactly as long as the handler that holds this sink.
final class HarnessRegistration: DeliverySink, @unchecked Sendable {
    /// How the registration was made, so a handler action that unobserves it can do so the same way.
    enum Form: Sendable {
        case handler
        case forwarding(context: Int)
        case typed(StressTypedKey)
    }

    let id: Int
    let controllerSlot: Int
    let controllerID: Int
    let objectSlot: Int
    /// The observed object's id.
    let objectID: Int
    /// The key path notifications must name.
    let keyPath: String
    /// The string key, if the registration has one (a typed key path without a name has none).
    let key: StressKey?
    let form: Form
    let action: HandlerAction
    private(set) weak var handle: ControllerHandle?
    private let world: StressWorld
    private let fired = AtomicCell()
    private let adopted = Protected<StressObject?>(nil)

    init(
        id: Int, controllerSlot: Int, handle: ControllerHandle, objectSlot: Int, objectID: Int, keyPath: String,
        key: StressKey?, form: Form, action: HandlerAction, world: StressWorld
    ) {
        self.id = id
        self.controllerSlot = controllerSlot
        self.controllerID = handle.id
        self.handle = handle
        self.objectSlot = objectSlot
        self.objectID = objectID
        self.keyPath = keyPath
        self.key = key
        self.form = form
        self.action = action
        self.world = world
        // Named by who made it, for an explorer (its handler's calls are announced).
        SchedulePoints.created(self)
    }

    /// The system under test let go of the handler that held this sink: noted under the bulk removal running on
    /// this thread, if any (``BulkRelease``).
    deinit {
        BulkRelease.noteReleased(registration: id, controller: controllerID, object: objectID)
    }

    func deliver(observer: StressObserver?, object: StressObject, change: KeyValueChange) {
        // The order the handler hears its notifications in is what the oracle judges: for an explorer, each call
        // writes it.
        SchedulePoints.access(self, .handlerCalls, .write)
        world.recordDelivery(for: self, observer: observer, object: object, change: change)
        guard action != .none, fired.word.exchange(1) == 0 else { return }
        world.performHandlerAction(of: self, object: object)
    }

    /// Keeps `object` for as long as this sink lives.
    func adopt(_ object: StressObject) {
        let previous = adopted.exchange(object)
        withExtendedLifetime(previous) {}
    }
}
