/// **Planted bug `bug-change-before-initial`: a change racing the `.initial` notification is delivered before it.**
/// An observe with `.initial` adds its registration first and reads the initial value after (as it must, so no
/// change is lost), but a change that reaches the registration before the initial notification has been delivered
/// goes to the handler at once, on the thread that made it. The handler hears `change(new: 1)` and then
/// `initial(0)`: a view bound this way shows 0 while the property is 1. The baseline (like the guard) holds such a
/// change back and delivers it on the observing thread right after the initial notification.
///
/// Mirrors the guard's promise in ``ObservationController``'s documentation ("the handler hears the initial
/// notification before any change ... once `observe` and every set that overlapped it have returned, the last value
/// the handler heard is the property's current value") and Foundation's own behaviour, which has this hole. The
/// oracle sees `change-before-initial`, and `stale-last-value` when the change set a value the initial one then hid
/// (``InitialFirstChecks``), on `gauge`, whose sets take no lock the observe holds.
final class ChangeBeforeInitialController: BaselineController, @unchecked Sendable {
    // The planted bug: nothing waits for the initial notification.
    override var holdsChangesUntilInitialDelivered: Bool { false }
}
