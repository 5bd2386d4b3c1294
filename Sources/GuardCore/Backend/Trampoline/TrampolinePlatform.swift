/// What ``TrampolineBackend`` needs from a key-value observing implementation shaped like Foundation's: observers
/// that are objects it does not retain, registration and removal by (observer, key path, context), and a way to
/// attach an object to the observed object for exactly the observed object's lifetime (an associated object).
///
/// `NSObject`'s KVO is the implementation this exists for (``NSObjectBackend``, Apple platforms only). Keeping the
/// platform behind this protocol keeps everything else (the bookkeeping, the lifetime rules, the change conversion)
/// in code that every platform compiles and tests.
package protocol TrampolinePlatform: Sendable {
    /// Whether `object` can be observed for `keyPath` without the implementation raising. No side effects.
    func canObserve(_ object: AnyObject, forKeyPath keyPath: String) -> Bool

    /// The value at `keyPath` of `object` (key-value coding), `nil` when it is nil or cannot be read without the
    /// implementation raising.
    func currentValue(of object: AnyObject, forKeyPath keyPath: String) -> Any?

    /// The sentinel attached to `object`, if any.
    func sentinel(of object: AnyObject) -> ObservedObjectSentinel?

    /// Attaches `sentinel` to `object`, retained until `object` is deallocated, and released only after the
    /// implementation has dropped every observation of `object` (so nothing can call a trampoline afterwards).
    func attach(_ sentinel: ObservedObjectSentinel, to object: AnyObject)

    /// A new observer object whose change callback forwards to
    /// ``TrampolineRegistration/deliver(context:of:change:)``.
    func makeTrampoline(forwardingTo registration: TrampolineRegistration) -> AnyObject

    /// `object.addObserver(trampoline, forKeyPath: keyPath, options: options, context: context)`. The backend never
    /// passes `.initial` (the guard delivers it itself).
    func addObserver(
        _ trampoline: AnyObject, to object: AnyObject, forKeyPath keyPath: String, options: KeyValueObservingOptions,
        context: UnsafeMutableRawPointer)

    /// `object.removeObserver(trampoline, forKeyPath: keyPath, context: context)`. Called exactly once per
    /// successful ``addObserver(_:to:forKeyPath:options:context:)``, with a live `object`.
    ///
    /// The backend releases the trampoline as soon as this returns, so the platform must keep alive an observer whose
    /// callout began before the removal: Foundation retains the observers of a change while it notifies them (since
    /// iOS 11 / macOS 10.13; crash logs name the frame
    /// `KVO_IS_RETAINING_ALL_OBSERVERS_OF_THIS_OBJECT_IF_IT_CRASHES_AN_OBSERVER_WAS_OVERRELEASED_OR_SMASHED`).
    func removeObserver(
        _ trampoline: AnyObject, from object: AnyObject, forKeyPath keyPath: String, context: UnsafeMutableRawPointer)
}
