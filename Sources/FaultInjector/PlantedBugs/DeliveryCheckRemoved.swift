import GuardCore

/// **Planted bug `bug-delivery-check-removed`: the delivery-time state check is gone.** Every notification that
/// reaches a registration's runtime observer is handed to the handler, whether or not the registration is still
/// live. A registration cancelled inside its `.initial` callback stays in the runtime until its observing thread
/// removes it, and a change made meanwhile (after the unobserve returned) reaches the handler.
///
/// Breaks the guard's ordering guarantee ("a change made after `unobserve` returned is never delivered to
/// that registration"), like FBKVOController's unsynchronised state flag. The oracle sees
/// `delivery-outside-registration`.
final class DeliveryCheckRemovedController: BaselineController, @unchecked Sendable {
    override class func deliver(
        _ change: KeyValueChange, of object: StressObject, through bridge: PlantedBridge, in table: PlantedTable
    ) {
        // The planted bug: no look-up of the registration's state.
        bridge.forward(change, of: object)
    }
}
