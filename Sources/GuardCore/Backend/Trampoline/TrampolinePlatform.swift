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

    /// The sentinel attached to `object`, if any.
    func sentinel(of object: AnyObject) -> ObservedObjectSentinel?

    /// Attaches `sentinel` to `object`, retained until `object` is deallocated, and released only after the
    /// implementation has dropped every observation of `object` (so nothing can call a trampoline afterwards).
    func attach(_ sentinel: ObservedObjectSentinel, to object: AnyObject)

    /// A new observer object whose change callback forwards to
    /// ``TrampolineRegistration/deliver(context:of:change:)``.
    func makeTrampoline(forwardingTo registration: TrampolineRegistration) -> AnyObject

    /// `object.addObserver(trampoline, forKeyPath: keyPath, options: options, context: context)`. With `.initial`, the
    /// first notification reaches the trampoline before this returns.
    func addObserver(
        _ trampoline: AnyObject, to object: AnyObject, forKeyPath keyPath: String, options: KeyValueObservingOptions,
        context: UnsafeMutableRawPointer)

    /// `object.removeObserver(trampoline, forKeyPath: keyPath, context: context)`. Called exactly once per
    /// successful ``addObserver(_:to:forKeyPath:options:context:)``, with a live `object`.
    func removeObserver(
        _ trampoline: AnyObject, from object: AnyObject, forKeyPath keyPath: String, context: UnsafeMutableRawPointer)
}
