import GuardCore

/// The harness side of one observe operation: the sink the system under test delivers to. It records each
/// notification and runs the operation's handler action on the first one.
final class HarnessRegistration: DeliverySink, @unchecked Sendable {
    let id: Int
    let controllerSlot: Int
    let controllerID: Int
    let objectSlot: Int
    let key: StressKey
    let action: HandlerAction
    private(set) weak var handle: ControllerHandle?
    private let world: StressWorld
    private let fired = AtomicCell()

    init(
        id: Int, controllerSlot: Int, handle: ControllerHandle, objectSlot: Int, key: StressKey,
        action: HandlerAction, world: StressWorld
    ) {
        self.id = id
        self.controllerSlot = controllerSlot
        self.controllerID = handle.id
        self.handle = handle
        self.objectSlot = objectSlot
        self.key = key
        self.action = action
        self.world = world
    }

    func deliver(observer: StressObserver?, object: StressObject, change: KeyValueChange) {
        world.recordDelivery(for: self, observer: observer, change: change)
        guard action != .none, fired.word.exchange(1) == 0 else { return }
        world.performHandlerAction(of: self, object: object)
    }
}
