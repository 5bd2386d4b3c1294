/// **Planted bug `bug-weak-objects-not-dropped`: a weakly held object's registrations are not dropped when it
/// deinitializes.** A controller asked to hold its objects weakly does hold them weakly, but its runtime
/// registrations stay on the object, so the object deinitializes while observed.
///
/// Mirrors DESIGN.md section 5 race 3 (the observed object deallocates while still observed without retention,
/// FBKVOController issue #140) and race 6 (an unowned target that deallocates). The oracle sees
/// `runtime-misuse(deallocatedWhileObserved)`.
final class WeakObjectsNotDroppedController: BaselineController, @unchecked Sendable {
    // The planted bug: holds weakly as asked, with nothing that drops the registration on the object's deinit.
    override var keepsObjectsAlive: Bool { retainsObjects }
}
