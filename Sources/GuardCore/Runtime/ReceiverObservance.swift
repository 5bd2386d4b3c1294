/// An observance whose notifications go to an ``ObservationReceiver`` the runtime or the guard made: a guard
/// registration (through ``KVORuntimeBackend``), a dotted key path's ``KeyPathForwarder``, a ``DependencyRelay``.
///
/// The receiver is held strongly until the observance itself goes, so a delivery reaches it with no weak reference
/// to load. Whoever made the observance removes it (the guard removes every registration it makes, forwarders and
/// relays are removed with what they serve); an observance that drops with its object tells the receiver.
final class ReceiverObservance: Observance, @unchecked Sendable {
    let receiver: any ObservationReceiver

    init(
        receiver: any ObservationReceiver, info: KeyPathInfo, options: KeyValueObservingOptions,
        context: UnsafeMutableRawPointer?, dropsWithObject: Bool, isGuarded: Bool, joinsChangesUnderWay: Bool? = nil
    ) {
        self.receiver = receiver
        super.init(
            info: info, options: options, context: context, dropsWithObject: dropsWithObject, isGuarded: isGuarded,
            joinsChangesUnderWay: joinsChangesUnderWay)
    }

    override var observerType: Any.Type { type(of: receiver) }
    override var observerAddress: UInt { ObjectDescription.address(of: receiver) }

    override func deliver(_ change: KeyValueChange, from object: KVOObject) {
        guard isActive else { return }
        SchedulePoints.reach(.runtimeBeforeCallback, self)
        receiver.receive(change, of: object)
    }

    override func announceObjectDeinit() {
        receiver.observedObjectDidDeinit()
    }

    override func announceChainBroken() {
        receiver.observedKeyPathBecameUnavailable()
    }

    override var leadsToRelay: Bool {
        receiver is DependencyRelay || (receiver as? KeyPathForwarder)?.leadsToRelay == true
    }
}
