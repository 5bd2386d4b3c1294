/// Observes objects on behalf of one observer and makes every observer mistake a logged no-op instead of a crash.
///
/// This is what FBKVOController is to Foundation's KVO, with these guarantees:
///
/// - **Deduplication.** One registration per (controller, object, key path). A duplicate `observe` changes
///   nothing and emits ``GuardDiagnostic/Kind/duplicateObservation``.
/// - **Safe removal.** Removing something removed before, or never registered, is a no-op that emits
///   ``GuardDiagnostic/Kind/doubleRemoval`` or ``GuardDiagnostic/Kind/removalOfUnregistered``. The runtime never
///   sees a removal it would crash on.
/// - **Teardown.** Releasing the controller unregisters everything. With `retainsObservedObjects: false`, an
///   observed object that deinitializes drops its registrations without any misuse; a ``KVOObject`` may still
///   unobserve itself in its own deinit (its registrations are its own until that deinit ends), and a new object at a
///   gone object's address never inherits the gone object's registrations. A change such an object announces in its
///   deinit reaches the registrations of its own keys; a dotted or dependent key path that follows another object
///   from it has let go of it by then and hears nothing more. An object that observes itself through a controller it
///   owns needs `retainsObservedObjects: false`: a controller that retains the object that owns it keeps it alive.
/// - **`.initial` + unobserve.** Unobserving (or calling ``unobserveAll()``, or releasing the controller) inside the
///   `.initial` handler is a clean removal: no misuse, no later notification, even if another thread unobserves
///   at the same moment.
/// - **Threads.** Every method may be called from any thread at any time. Handlers run outside every internal lock,
///   so a handler may observe, unobserve, mutate, or drop the last reference to its controller.
/// - **Order.** Each registration is one registration with the backend, so handlers of one change run in the
///   backend's order; with GuardCore's runtime and with Foundation, that is prior notifications oldest registration
///   first and change notifications newest first (see ``KVOObject/addObserver(_:forKeyPath:options:context:)``),
///   across controllers too.
/// - **No misuse reaches the runtime.** Whatever the calls and threads, the runtime's misuse count stays zero. A dotted
///   key path whose chain stops making sense (an object along it lacks the next key) reads as `nil` and emits
///   ``GuardDiagnostic/Kind/keyPathUnavailable`` each time it is re-wired onto such an object; deliveries of its deeper
///   changes resume when the chain is whole again.
/// - **Removal.** No change made after `unobserve` returned is delivered to the removed registration. (A handler
///   already running on another thread when `unobserve` is called may still be finishing after it returns.)
/// - **`.initial`.** Every `.registered` result of an `observe` with `.initial` comes with exactly one initial
///   notification, delivered on the calling thread before `observe` returns, whatever other threads do (even if one
///   of them removes the registration meanwhile). The registration exists before the initial value is read, so a
///   change that completes after `observe` began is reflected in the initial value or delivered as a change, never
///   lost.
/// - **Initial first, last value current.** The handler hears the initial notification before any change. A change
///   that reaches the registration before its initial notification has been delivered (made on another thread while
///   `observe` runs, or by the initial handler itself) is held back, and delivered right after the initial handler
///   returns, **on the thread that called `observe`, before `observe` returns**, in the order the changes were made
///   (a prior notification before its change); the thread that made it does not wait. So once `observe` and every set
///   that overlapped it have returned, the last value the handler heard is the property's current value, for sets
///   ordered among themselves (one setter at a time, or the property's own lock: two sets racing each other are a
///   data race whatever the guard does). A change already under way when `observe` began may come without its old
///   value, when that value was never read (a dependent or dotted key path nobody observed with `.old` then, or a
///   change nobody observed when it began). Held-back changes of a registration removed before they are delivered
///   (by another thread, or by its own initial handler) are dropped: a removal inside the initial handler is clean.
///   (An ``Observed`` property is not synchronized: a set of it on another thread while `observe` reads it is a data
///   race, and one that began while nobody observed the property is not announced at all, as in Foundation.)
/// - **Observer gone.** A controller whose observer is gone answers `observe` with
///   `.invalid(.observerDeallocated)`: no handler of it could ever run. Each registration that drops a notification
///   because its observer is gone emits ``GuardDiagnostic/Kind/observerDeallocated`` exactly once, also when the drop
///   races the teardown the observer's release sets off (see that kind).
/// - **Object deinitializing.** An object asking to be observed from its own deinit (directly, or through anything its
///   deinit calls) gets `.invalid(.objectDeinitializing)` and nothing is registered, whether the controller holds
///   observed objects strongly or weakly: the object is going away, and a controller that kept it would outlive its
///   deinit (Swift stops the process then).
///
/// The observer is held weakly; observed objects strongly unless `retainsObservedObjects` is `false`. Diagnostics go
/// to ``diagnosticSink`` or, if it is `nil`, to the process-wide ``GuardDiagnostics/sink``.
///
/// The observe methods for ``KVOObject``s are in an extension; everything here works with any object the backend
/// understands.
public final class ObservationController<Observer: AnyObject>: @unchecked Sendable {
    @usableFromInline let core: ControllerCore

    /// Creates a controller for `observer`.
    ///
    /// - Parameters:
    ///   - observer: Passed to every handler; held weakly. Handlers stop running once it is gone.
    ///   - retainsObservedObjects: Hold observed objects strongly (the default) or weakly.
    ///   - backend: The key-value observing implementation; by default ``AutomaticBackend`` (GuardCore's runtime for
    ///     ``KVOObject``s, Foundation's KVO for `NSObject`s on Apple platforms).
    ///   - diagnosticSink: Where this controller's diagnostics go; `nil` uses ``GuardDiagnostics/sink``.
    public init(
        observer: Observer, retainsObservedObjects: Bool = true,
        backend: any KeyValueObservingBackend = AutomaticBackend(), diagnosticSink: (any DiagnosticSink)? = nil
    ) {
        core = ControllerCore(
            observer: observer, retainsObservedObjects: retainsObservedObjects, backend: backend, sink: diagnosticSink)
    }

    /// A controller that holds `observer` strongly: for an observer only the caller made and nothing else needs
    /// (a token's), so it needs no weak reference. Objects are held weakly or strongly as `retainsObservedObjects`
    /// says; diagnostics go to the process-wide sink.
    init(owning observer: Observer, retainsObservedObjects: Bool, backend: any KeyValueObservingBackend) {
        core = ControllerCore(
            observer: observer, ownsObserver: true, retainsObservedObjects: retainsObservedObjects, backend: backend,
            sink: nil)
    }

    deinit {
        // Nothing can ask this controller to remove anything any more: no removal needs remembering.
        core.unobserveAll(rememberingRemovals: false)
    }

    /// The observer, while it lives.
    public var observer: Observer? {
        core.observer.map { unsafeDowncast($0, to: Observer.self) }
    }

    /// Whether observed objects are held strongly.
    public var retainsObservedObjects: Bool {
        core.retainsObservedObjects
    }

    /// This controller's diagnostic sink; `nil` (the default) sends events to ``GuardDiagnostics/sink``.
    public var diagnosticSink: (any DiagnosticSink)? {
        get { core.sink }
        set { core.sink = newValue }
    }

    /// Stops observing `keyPath` on `object`.
    ///
    /// Returns ``UnobserveResult/removed``, or (each with its diagnostic event) ``UnobserveResult/alreadyRemoved``,
    /// ``UnobserveResult/notRegistered`` or ``UnobserveResult/invalid(_:)``. No change made after this returns reaches
    /// the removed registration.
    @discardableResult
    public func unobserve(
        _ object: AnyObject?, keyPath: String, file: String = #fileID, line: UInt = #line
    ) -> UnobserveResult {
        core.unobserve(object, keyPath: keyPath, callSite: .init(file: file, line: line))
    }

    /// Stops observing every key path of `object`. Returns ``UnobserveResult/removed`` if anything was removed. The
    /// registrations are unregistered, then released, in the order they were made (one that a change under way still
    /// holds goes when that change ends).
    @discardableResult
    public func unobserve(_ object: AnyObject?, file: String = #fileID, line: UInt = #line) -> UnobserveResult {
        core.unobserve(object, callSite: .init(file: file, line: line))
    }

    /// Stops observing everything and returns how many registrations it removed. Calling it with nothing registered
    /// is not a mistake and emits nothing. The registrations are unregistered, then released, in the order they were
    /// made (as when the controller is released).
    @discardableResult
    public func unobserveAll() -> Int {
        core.unobserveAll()
    }

    /// How many (object, key path) registrations the controller holds.
    public var registrationCount: Int {
        core.registrationCount
    }

    /// Whether the controller observes `keyPath` on `object`.
    public func isObserving(_ object: AnyObject, keyPath: String) -> Bool {
        core.isObserving(object, keyPath: keyPath)
    }

    /// The key paths the controller observes on `object`, sorted.
    public func observedKeyPaths(of object: AnyObject) -> [String] {
        core.observedKeyPaths(of: object)
    }

    /// Observes `keyPath` on any object the backend understands, with an untyped object in the handler. The typed
    /// overloads (for ``KVOObject``s, in an extension) are usually what you want; this one serves other backends.
    @discardableResult @inlinable
    public func observe(
        object: AnyObject?, keyPath: String, options: KeyValueObservingOptions = [],
        file: String = #fileID, line: UInt = #line,
        handler: @escaping @Sendable (_ observer: Observer, _ object: AnyObject, _ change: KeyValueChange) -> Void
    ) -> ObserveResult {
        register(object, keyPath: keyPath, options: options, context: nil, file: file, line: line, handler: handler)
    }

    /// Registers `handler`, typed as the caller declared it; the public `observe` overloads build on this.
    /// Inlinable, so the registration's class (generic over the observer and the object) is specialized where the
    /// caller's types are known: its metadata is then a cached load instead of a generic-metadata lookup (about a
    /// twentieth of an observe + unobserve pair).
    @inlinable
    func register<Object: AnyObject>(
        _ object: AnyObject?, keyPath: String, options: KeyValueObservingOptions, context: UnsafeMutableRawPointer?,
        file: String, line: UInt, handler: @escaping HandlerRegistration<Observer, Object>.Handler
    ) -> ObserveResult {
        core.observe(
            object, keyPath: keyPath, options: options, context: context, callSite: .init(file: file, line: line),
            makeRegistration: { HandlerRegistration($0, handler: handler) })
    }

    /// Registers the same handler for several key paths, one result per key path; an empty list is an invalid
    /// argument.
    func register<Object: AnyObject>(
        _ object: AnyObject?, keyPaths: [String], options: KeyValueObservingOptions, context: UnsafeMutableRawPointer?,
        file: String, line: UInt, handler: @escaping HandlerRegistration<Observer, Object>.Handler
    ) -> [ObserveResult] {
        guard !keyPaths.isEmpty else {
            core.emit(
                .invalidArgument, reason: .emptyKeyPathList, object: object, keyPath: nil,
                callSite: .init(file: file, line: line))
            return []
        }
        return keyPaths.map { keyPath in
            register(object, keyPath: keyPath, options: options, context: context, file: file, line: line, handler: handler)
        }
    }
}
