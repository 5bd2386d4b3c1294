/// **Planted bug `bug-weak-objects-not-dropped`: a weakly held object's registrations are not dropped when it
/// deinitializes.** A controller asked to hold its objects weakly does hold them weakly, but its runtime
/// registrations stay on the object, so the object deinitializes while observed.
///
/// Mirrors a known KVO crash: an observed object deallocates while still observed by a controller that does not
/// retain it (FBKVOController's issue #140), or an unowned target deallocates. The oracle sees
/// `runtime-misuse(deallocatedWhileObserved)`.
final class WeakObjectsNotDroppedController: BaselineController, @unchecked Sendable {
    // The planted bug: holds weakly as asked, with nothing that drops the registration on the object's deinit.
    override var keepsObjectsAlive: Bool { retainsObjects }
}
