/// **Planted bug `bug-initial-read-early`: the `.initial` value is read before the registration exists.** An observe
/// with `.initial` + `.new` reads the key's current value first, then adds its registration to the runtime, then
/// delivers the value it read. A change that completes between the read and the add is in neither: the value read
/// is older than it, and the runtime did not have the registration yet to announce it. The observer is left with a
/// stale value it is never told is stale. The baseline (like the guard) adds the registration first, as one that
/// joins a change already under way, and reads the value after, so such a change is in the value read or delivered as
/// a change.
///
/// Mirrors the guard's promise in ``ObservationController``'s documentation ("the registration exists before the
/// initial value is read, so a change that completes after `observe` began is reflected in the initial value or
/// delivered as a change, never lost") and the hand-rolled "read, then subscribe" pattern it rules out. The oracle
/// sees `missing-delivery` (``InitialValueChecks``' loss rule) on a raced read of `gauge`, whose sets take no lock
/// the observe holds, when another registration of the same object's `gauge` surely heard the lost change, and
/// `stale-last-value` (``InitialFirstChecks``) when the handler is left on the value from before it.
final class InitialValueReadEarlyController: BaselineController, @unchecked Sendable {
    // The planted bug: the `.initial` value comes from before the runtime's add.
    override var readsInitialValueBeforeRegistering: Bool { true }
}
