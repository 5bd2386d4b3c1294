/// The platform-free state and logic of one ``ObservationController``: deduplication, removal bookkeeping, the
/// `.initial` race (and the changes held back until the initial notification), teardown and diagnostics.
///
/// It reaches observed objects through its ``KeyValueObservingBackend``, with one shortcut: when the backend is
/// GuardCore's own runtime (``KVORuntimeBackend``, or ``AutomaticBackend``, which hands ``KVOObject``s to it), it
/// checks a key path once and inserts and removes its registration in the object's observation table directly (the
/// registration is the runtime's observance), with the same effect as the backend's calls. Any other backend, a
/// wrapper around ``KVORuntimeBackend`` included, is reached only through the protocol.
///
/// Its parts: the observe and unobserve protocol (`ControllerCore+Observe.swift`, `ControllerCore+Unobserve.swift`),
/// the registration table and its per-object chains (`RegistrationTable.swift`), what a bulk removal does after
/// unlocking (`Retirement.swift`), and the changes held back for `.initial` (`ControllerCore+HeldChanges.swift`).
///
/// Every method is thread-safe. The lock guards the tables only; the backend, handlers and diagnostic sinks are
/// always called with it released, and registrations (which own the user's handler, what it captures, and possibly
/// the observed object) are released only after unlocking, so a handler may call back into the controller (or
/// release it), and a deinit that a release triggers may re-enter the controller.
@usableFromInline
final class ControllerCore: @unchecked Sendable {
    /// The controller's lock (see ``withLock(_:)``), reached by address only
    /// (``LockOperations/primitive(of:afterWords:)``): keep it first.
    private var lockPrimitive = LockPrimitive()
    /// The observer, held weakly: a controller never keeps an application's observer alive.
    private weak var weakObserver: AnyObject?
    /// The observer of a controller made to own it (a token's private observer, which nothing else holds), held
    /// strongly: no weak reference (and no side table) is made for it, and it lives as long as the controller's state.
    private let ownedObserver: AnyObject?
    /// The observer's type, rendered only when a diagnostic names it.
    private let observerMetatype: Any.Type
    /// The observer's identity, as loads of the weak reference announce it (``SharedWord/lifetime``).
    private let observerIdentity: ObjectIdentifier
    /// Answers `observe` without `.initial`, which only needs to know whether the observer lives; `nil` for an owned
    /// observer, which always does.
    private let observerLiveness: ObserverLiveness?
    let retainsObservedObjects: Bool
    let backend: any KeyValueObservingBackend
    /// Whether the backend hands every ``KVOObject`` to GuardCore's runtime (``KVORuntimeBackend`` itself, or
    /// ``AutomaticBackend``): for those objects the guard then validates a key path once for both the check and the
    /// add, and calls the runtime directly.
    let runtimeHandlesKVOObjects: Bool
    let runtime = KVORuntimeBackend()
    // The mutable state below is touched only under the lock and never across a call out of the controller, so the
    // run-time exclusivity checks (`@exclusivity(unchecked)`) would only cost time on every observe and unobserve.
    @exclusivity(unchecked) private var ownSink: (any DiagnosticSink)?
    /// Live registrations by object: the newest of each object's registrations, which links to the older ones
    /// (``GuardRegistration/nextOnSameObject``).
    let registrations = IdentityTable<GuardRegistration>()
    @exclusivity(unchecked) var registrationTotal = 0
    /// Numbers registrations in the order they were made, so bulk removals unregister in a reproducible order.
    @exclusivity(unchecked) var nextSequence: UInt64 = 0
    /// What was removed before, to tell a double removal from the removal of something never registered.
    @exclusivity(unchecked) var removed = RemovalHistory()
    /// Changes held back for registrations whose `.initial` notification is pending (see
    /// `ControllerCore+HeldChanges.swift`).
    @exclusivity(unchecked) var held = HeldChanges()

    /// The state of a controller for `observer`, held weakly, or strongly with `ownsObserver` (for an observer that
    /// only the controller's owner made, and that nothing but the controller needs to keep).
    init(
        observer: AnyObject, ownsObserver: Bool = false, retainsObservedObjects: Bool,
        backend: any KeyValueObservingBackend, sink: (any DiagnosticSink)?
    ) {
        if ownsObserver {
            self.ownedObserver = observer
            self.observerLiveness = nil
        } else {
            self.ownedObserver = nil
            self.weakObserver = observer
            self.observerLiveness = ObserverLiveness(of: observer)
        }
        self.observerMetatype = type(of: observer)
        self.observerIdentity = ObjectIdentifier(observer)
        self.retainsObservedObjects = retainsObservedObjects
        self.backend = backend
        // Both are structs, so their dynamic type says it exactly: a comparison of type metadata, where `is` would
        // run a dynamic cast (a good part of what making a controller costs).
        let backendType = type(of: backend)
        self.runtimeHandlesKVOObjects = backendType == KVORuntimeBackend.self || backendType == AutomaticBackend.self
        self.ownSink = sink
        LockOperations.initialize(LockOperations.primitive(of: self))
        SchedulePoints.created(self)
        SchedulePoints.guards(self, .registrationState)
    }

    deinit {
        LockOperations.destroy(LockOperations.primitive(of: self))
    }

    /// Runs `body` with the controller's lock held: it guards the tables and ``held``. Like a ``Lock``, inline, so
    /// the hot paths load nothing to take it; acquires and releases are announced as the controller's.
    @inline(__always)
    func withLock<Result>(_ body: () throws -> Result) rethrows -> Result {
        let primitive = LockOperations.primitive(of: self)
        LockOperations.lock(primitive, announcedAs: self)
        defer { LockOperations.unlock(primitive, announcedAs: self) }
        return try body()
    }

    /// The observer, while it lives.
    var observer: AnyObject? {
        if let ownedObserver { return ownedObserver }
        let observer = weakObserver
        SchedulePoints.access(observerIdentity, .lifetime, .read)
        return observer
    }

    /// Tells an explorer that the caller dropped the strong reference to the observer it took with ``observer`` (a
    /// write of the observer's life: the last drop runs its deinit). Call where the reference goes.
    @inline(__always)
    func droppedObserver() {
        guard ownedObserver == nil else { return }
        SchedulePoints.access(observerIdentity, .lifetime, .drop)
    }

    /// Whether the observer has not begun its deinit, asked without a strong reference to it where possible.
    @inline(__always)
    var observerLives: Bool {
        // Asked through the stored property, with no copy of it alive across the announcement, which would cost an
        // unowned retain and release of the observer on every call.
        let lives = observerLiveness?.observerLives(weakObserver: weakObserver) ?? true
        if observerLiveness != nil { SchedulePoints.access(observerIdentity, .lifetime, .read) }
        return lives
    }

    /// The observer's unqualified type name, as diagnostics show it.
    var observerType: String {
        ObjectDescription.typeName(observerMetatype)
    }

    // MARK: Queries

    var registrationCount: Int {
        withLock { registrationTotal }
    }

    func isObserving(_ object: AnyObject, keyPath: String) -> Bool {
        let id = ObjectIdentifier(object)
        return withLock {
            // A gone object's registration at this address is never `object`'s (see `liveChain(from:of:)`).
            let head = registrations.value(for: id)
            guard let registration = RegistrationChain.find(keyPath: keyPath, from: head) else { return false }
            return retainsObservedObjects || registration.isAbout(object)
        }
    }

    func observedKeyPaths(of object: AnyObject) -> [String] {
        let id = ObjectIdentifier(object)
        return withLock { liveChain(from: registrations.value(for: id), of: object).map(\.keyPath) }
            .sortedAsKeys()
    }

    var sink: (any DiagnosticSink)? {
        get { withLock { ownSink } }
        set {
            // The replaced sink is the user's: release it after unlocking.
            let replaced = withLock { () -> (any DiagnosticSink)? in
                let replaced = ownSink
                ownSink = newValue
                return replaced
            }
            withExtendedLifetime(replaced) {}
        }
    }

    /// `object` as a ``KVOObject`` when the backend hands it to GuardCore's runtime; `nil` otherwise. Unretained: the
    /// caller keeps `object` alive while it uses the result (through `_withUnsafeGuaranteedRef`), so the cast costs
    /// the hot paths no reference counting.
    @inline(__always)
    func runtimeObject(_ object: AnyObject) -> Unmanaged<KVOObject>? {
        runtimeHandlesKVOObjects ? KVOObject.unretained(object) : nil
    }

    // MARK: Diagnostics

    func invalid(
        _ reason: GuardDiagnostic.InvalidArgument, object: AnyObject?, keyPath: String?,
        callSite: GuardDiagnostic.CallSite
    ) -> ObserveResult {
        emit(.invalidArgument, reason: reason, object: object, keyPath: keyPath, callSite: callSite)
        return .invalid(reason)
    }

    func invalidRemoval(
        _ reason: GuardDiagnostic.InvalidArgument, object: AnyObject?, keyPath: String?,
        callSite: GuardDiagnostic.CallSite
    ) -> UnobserveResult {
        emit(.invalidArgument, reason: reason, object: object, keyPath: keyPath, callSite: callSite)
        return .invalid(reason)
    }

    /// Builds one event and hands it to the controller's sink, or the process-wide one. Never called with the
    /// lock held.
    func emit(
        _ kind: GuardDiagnostic.Kind, reason: GuardDiagnostic.InvalidArgument? = nil, object: AnyObject?,
        keyPath: String?, callSite: GuardDiagnostic.CallSite
    ) {
        let event = GuardDiagnostic(
            kind: kind, invalidArgument: reason, observerType: observerType,
            objectType: object.map { ObjectDescription.typeName(type(of: $0)) },
            objectAddress: object.map(ObjectDescription.address(of:)), keyPath: keyPath, callSite: callSite,
            thread: CurrentThread.description)
        (sink ?? GuardDiagnostics.sink).record(event)
    }
}
