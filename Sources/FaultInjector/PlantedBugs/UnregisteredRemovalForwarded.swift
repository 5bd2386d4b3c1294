import GuardCore

/// **Planted bug `bug-unregistered-removal-forwarded`: a removal of what is not registered reaches the runtime.**
/// An unobserve that finds nothing to remove (removed before, or never observed) still calls the runtime's
/// `removeObserver`, exactly what the guard exists to prevent.
///
/// Mirrors the most common KVO crash (removing an unregistered observer, or removing twice: Foundation's
/// `NSRangeException`). The oracle sees `runtime-misuse(notRegistered)`.
final class UnregisteredRemovalForwardedController: BaselineController, @unchecked Sendable {
    /// The observer the forwarded removals name (the runtime has no registration of it).
    private let stray = StrayObserver()

    override func unobserveNothing(_ object: StressObject, keyPath: String) {
        object.removeObserver(stray, forKeyPath: keyPath, context: PlantedContext.unused)
    }
}

/// An observer nothing ever registers.
private final class StrayObserver: KeyValueObserver, @unchecked Sendable {
    func observeValue(
        forKeyPath keyPath: String, of object: KVOObject, change: KeyValueChange, context: UnsafeMutableRawPointer?
    ) {}
}
