/// How the guard reaches a key-value observing implementation.
///
/// The guard calls nothing else on an observed object, with one shortcut: behind GuardCore's own runtime
/// (``KVORuntimeBackend``, or ``AutomaticBackend`` for a ``KVOObject``), it inserts and removes its registrations in
/// the object's observation table directly, with the same effect as this protocol's calls.
///
/// GuardCore's own runtime stands behind it (``KVORuntimeBackend``); on Apple platforms `NSObject`'s KVO can stand
/// behind the same protocol without any change to the guard. A backend must deliver notifications synchronously on
/// the thread that made the change and call receivers outside its own locks. It may hold a receiver strongly or
/// weakly while the registration exists; it must let go of it once the registration is removed or dropped, and must
/// release it outside its own locks (a receiver owns the user's handler). The guard removes every registration it
/// makes, and holds a handle only while its registration is active.
public protocol KeyValueObservingBackend: Sendable {
    /// Whether `object` can be observed for `keyPath` at all (an observable object, a well-formed key path, known
    /// keys). Must have no side effects and never count as misuse. The guard asks before it reserves a
    /// registration, so an invalid call never looks registered to a concurrent one.
    func canObserve(_ object: AnyObject, forKeyPath keyPath: String) -> Bool

    /// Registers `receiver` for `keyPath` on `object`, Foundation's `addObserver(_:forKeyPath:options:context:)`.
    ///
    /// The guard never passes `.initial`: it reads the initial value with ``currentValue(of:forKeyPath:)`` once the
    /// registration exists and delivers it itself. Returns a handle for ``removeObservation(_:from:)``, or `nil`
    /// without side effects (and without any misuse) if `object` cannot be observed for `keyPath`. Refusing what
    /// ``canObserve(_:forKeyPath:)`` accepted a moment before (a dotted path's chain changed meanwhile) is for
    /// backends where registering would be a misuse (Foundation raises for an unknown key along the chain): concurrent
    /// calls may already have seen the reserved registration, and that observe then answers `.invalid` for a
    /// registration others saw. GuardCore's runtime registers such a path instead (it reads as `nil`). When
    /// `dropsWithObject` is set and `object` deinitializes while the registration exists, the backend drops it
    /// silently and calls ``ObservationReceiver/observedObjectDidDeinit()``.
    func addObserver(
        _ receiver: any ObservationReceiver, to object: AnyObject, forKeyPath keyPath: String,
        options: KeyValueObservingOptions, context: UnsafeMutableRawPointer?, dropsWithObject: Bool
    ) -> (any BackendHandle)?

    /// Removes a registration made by ``addObserver(_:to:forKeyPath:options:context:dropsWithObject:)``. Removing
    /// one the backend already dropped is a silent no-op.
    func removeObservation(_ observation: any BackendHandle, from object: AnyObject)

    /// The current value at `keyPath` of `object` (for `.initial` notifications), `nil` when it is `nil` or cannot
    /// be read. Must never count as misuse.
    func currentValue(of object: AnyObject, forKeyPath keyPath: String) -> Any?
}

/// The callback side of ``KeyValueObservingBackend``: what a backend calls on the guard.
public protocol ObservationReceiver: AnyObject, Sendable {
    /// One notification for the registration this receiver was added with.
    func receive(_ change: KeyValueChange, of object: AnyObject)
    /// The observed object deinitialized and the backend dropped the registration (only for registrations added
    /// with `dropsWithObject`).
    func observedObjectDidDeinit()
    /// A dotted key path's chain reached an object that does not have the next key; its value reads as `nil` until
    /// the chain is whole again.
    func observedKeyPathBecameUnavailable()
}

/// A backend's handle to one registration; the guard keeps it until it removes the registration.
public protocol BackendHandle: AnyObject, Sendable {}
