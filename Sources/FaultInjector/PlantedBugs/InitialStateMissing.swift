/// **Planted bug `bug-initial-state-missing`: the `.initial` pending / cancelled handling is missing.** A
/// registration counts as registered before the runtime has it, and `.initial` is left to the runtime, which
/// delivers it (as Foundation does) before it inserts the registration. An unobserve from inside that initial callback, or from another thread
/// while the add runs, takes the registration out and asks the runtime to remove what it does not have yet; the
/// registration the runtime then inserts is never removed. The baseline (like the guard) keeps such a registration
/// `pending` and turns the unobserve into `cancelled`, which the observing thread resolves once the add returns.
///
/// Mirrors a known KVO crash (`.initial` + unobserve inside the initial callback, radar 34307466,
/// FBKVOController issue #57, whose three-state flag is itself unsynchronised). The oracle sees
/// `runtime-misuse(notRegistered)` (Foundation's `NSRangeException`), then deliveries after the unobserve and a leak.
final class InitialStateMissingController: BaselineController, @unchecked Sendable {
    // The planted bug, first half: `.initial` comes from inside the runtime's add, before it has the registration.
    override var runtimeDeliversInitial: Bool { true }

    override func withdraw(_ registration: PlantedRegistration) -> Bool {
        // The planted bug, second half: no pending state. A pending registration is removed from the runtime at once.
        let wasLive = registration.state == .pending || registration.state == .active
        registration.set(.removed)
        return wasLive
    }
}
