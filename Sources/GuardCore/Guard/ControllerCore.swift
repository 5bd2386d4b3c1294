/// The platform-free state and logic of one ``ObservationController``: deduplication, removal bookkeeping, the
/// `.initial` race (and the changes held back until the initial notification), teardown and diagnostics. It talks to
/// observed objects only through a ``KeyValueObservingBackend``.
///
/// Every method is thread-safe. The lock guards the tables only; the backend, handlers and diagnostic sinks are
/// always called with it released, and registrations (which own the user's handler, what it captures, and possibly
/// the observed object) are released only after unlocking, so a handler may call back into the controller (or
/// release it), and a deinit that a release triggers may re-enter the controller.
@usableFromInline
final class ControllerCore: @unchecked Sendable {
    /// Guards the tables below and ``held``.
    let lock = EmbeddedLock()
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
    let retainsObjects: Bool
    let backend: any KeyValueObservingBackend
    /// Whether the backend hands every ``KVOObject`` to GuardCore's runtime (``KVORuntimeBackend`` itself, or
    /// ``AutomaticBackend``): for those objects the guard then validates a key path once for both the check and the
    /// add, and calls the runtime directly.
    private let runtimeHandlesKVOObjects: Bool
    private let runtime = KVORuntimeBackend()
    // The mutable state below is touched only under the lock and never across a call out of the controller, so the
    // run-time exclusivity checks (`@exclusivity(unchecked)`) would only cost time on every observe and unobserve.
    @exclusivity(unchecked) private var ownSink: (any DiagnosticSink)?
    /// Live registrations by object: the newest of each object's registrations, which links to the older ones
    /// (``GuardRegistration/nextOnSameObject``).
    private let registrations = IdentityTable<GuardRegistration>()
    @exclusivity(unchecked) private var registrationTotal = 0
    /// Numbers registrations in the order they were made, so bulk removals unregister in a reproducible order.
    @exclusivity(unchecked) private var nextSequence: UInt64 = 0
    /// What was removed before, to tell a double removal from the removal of something never registered.
    @exclusivity(unchecked) private var removed = RemovalHistory()
    /// Changes held back for registrations whose `.initial` notification is pending (see
    /// `ControllerCore+HeldChanges.swift`).
    @exclusivity(unchecked) var held = HeldChanges()

    /// The state of a controller for `observer`, held weakly, or strongly with `ownsObserver` (for an observer that
    /// only the controller's owner made, and that nothing but the controller needs to keep).
    init(
        observer: AnyObject, ownsObserver: Bool = false, retainsObjects: Bool, backend: any KeyValueObservingBackend,
        sink: (any DiagnosticSink)?
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
        self.retainsObjects = retainsObjects
        self.backend = backend
        // Both are structs, so their dynamic type says it exactly: a comparison of type metadata, where `is` would
        // run a dynamic cast (a good part of what making a controller costs).
        let backendType = type(of: backend)
        self.runtimeHandlesKVOObjects = backendType == KVORuntimeBackend.self || backendType == AutomaticBackend.self
        self.ownSink = sink
        SchedulePoints.created(self)
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
    private var observerLives: Bool {
        guard let observerLiveness else { return true }
        SchedulePoints.access(observerIdentity, .lifetime, .read)
        return observerLiveness.observerLives(weakObserver: weakObserver)
    }

    /// The observer's unqualified type name, as diagnostics show it.
    var observerType: String {
        ObjectDescription.typeName(observerMetatype)
    }

    // MARK: Observe

    /// Registers `keyPath` of `object` with the registration `makeRegistration` builds (a ``HandlerRegistration``
    /// around the caller's handler) from what the controller knows.
    @usableFromInline
    func observe(
        _ object: AnyObject?, keyPath: String, options: KeyValueObservingOptions, context: UnsafeMutableRawPointer?,
        callSite: GuardDiagnostic.CallSite, makeRegistration: (consuming GuardRegistration.Setup) -> GuardRegistration
    ) -> ObserveResult {
        // Unretained: the caller keeps `object` alive for the whole call (unwrapping it would take a reference).
        guard let object = object.map(Unmanaged.passUnretained) else {
            return invalid(.nilObject, object: nil, keyPath: keyPath, callSite: callSite)
        }
        return object._withUnsafeGuaranteedRef {
            observe(
                present: $0, keyPath: keyPath, options: options, context: context, callSite: callSite,
                makeRegistration: makeRegistration)
        }
    }

    /// ``observe(_:keyPath:options:context:callSite:makeRegistration:)`` of an object that is there, borrowed from
    /// the caller for the whole call (so the call takes no reference of its own to it).
    private func observe(
        present object: AnyObject, keyPath: String, options: KeyValueObservingOptions,
        context: UnsafeMutableRawPointer?, callSite: GuardDiagnostic.CallSite,
        makeRegistration: (consuming GuardRegistration.Setup) -> GuardRegistration
    ) -> ObserveResult {
        // An object asking from its own deinit is going away: a registration would hold it (strongly, past its
        // deinit, which stops the process) or observe nothing.
        guard !ObjectDeinitialization.isDeinitializing(object) else {
            return invalid(.objectDeinitializing, object: object, keyPath: keyPath, callSite: callSite)
        }
        // In a table of many objects the object's slot is a cache miss: start it now, so it overlaps the checks and
        // the registration's allocation instead of stalling the locked insertion.
        registrations.prefetchHome(of: ObjectIdentifier(object))
        // With `.initial`, held for the whole call, so the initial notification always has an observer to go to;
        // without, only asked about (no handler runs in this call).
        let initialObserver: AnyObject?
        if options.contains(.initial) {
            guard let observer else {
                return invalid(.observerDeallocated, object: object, keyPath: keyPath, callSite: callSite)
            }
            initialObserver = observer
        } else {
            guard observerLives else {
                return invalid(.observerDeallocated, object: object, keyPath: keyPath, callSite: callSite)
            }
            initialObserver = nil
        }
        // The observer held for `.initial` goes when this call returns: an explorer counts that as a drop.
        defer { if initialObserver != nil { droppedObserver() } }
        guard !KeyPathSyntax.hasMoreComponents(than: KeyPathSyntax.maximumGuardedComponents, keyPath) else {
            return invalid(.keyPathTooLong, object: object, keyPath: keyPath, callSite: callSite)
        }
        // With GuardCore's runtime behind it, the check keeps what it found (the object as a `KVOObject`, the key
        // path's info) for the add; a key path it accepts is well formed.
        let runtimeObject = runtimeObject(object)
        let info: KeyPathInfo
        if let runtimeObject {
            guard let runtimeInfo = runtimeObject._withUnsafeGuaranteedRef({ runtime.info(for: keyPath, on: $0) }) else {
                let reason: GuardDiagnostic.InvalidArgument =
                    !KeyPathSyntax.isWellFormed(keyPath) ? .emptyKeyPath
                    : runtimeObject._withUnsafeGuaranteedRef({ Self.dependsOnOverlongKeyPath(keyPath, on: $0) })
                        ? .keyPathTooLong : .unobservableKeyPath
                return invalid(reason, object: object, keyPath: keyPath, callSite: callSite)
            }
            info = runtimeInfo
        } else {
            guard KeyPathSyntax.isWellFormed(keyPath) else {
                return invalid(.emptyKeyPath, object: object, keyPath: keyPath, callSite: callSite)
            }
            guard backend.canObserve(object, forKeyPath: keyPath) else {
                return invalid(.unobservableKeyPath, object: object, keyPath: keyPath, callSite: callSite)
            }
            info = KeyPathInfo(keyPath: keyPath, triggerKeys: [KeyPathSyntax.firstKey(of: keyPath)])
        }
        // The setup borrows `object` (which the caller keeps alive for the whole call) and takes `info` over, so the
        // call takes no reference to either of its own.
        let registration = makeRegistration(
            GuardRegistration.Setup(
                object: object, info: consume info, options: options, context: context,
                retainsObject: retainsObjects, callSite: callSite, core: self))
        var gone = DeferredReleases()
        let reserved = lock.withLock(ownedBy: self) { () -> Bool in
            let linked = registrations.update(registration.objectID) { head in
                takeRegistrationsOfGoneObject(from: &head, notAbout: object, into: &gone)
                return Self.link(registration, into: &head)
            }
            guard linked else { return false }
            registration.sequence = nextSequence
            nextSequence &+= 1
            registrationTotal += 1
            return true
        }
        // Registrations of a dead object that had this address are released after unlocking.
        gone.release()
        guard reserved else {
            emit(.duplicateObservation, object: object, keyPath: keyPath, callSite: callSite)
            return .duplicate
        }

        // Registered without `.initial`: the registration must exist before the initial value is read, so a change
        // that completes after this call began is in that value or delivered as a change, never lost.
        SchedulePoints.reach(.guardBeforeRegister, registration)
        if let runtimeObject {
            // The registration is the runtime's observance, made with this very `info`: insert it as it is.
            runtimeObject._withUnsafeGuaranteedRef { $0.add(registration) }
            if registration.lacksObjectTable {
                // A weakly held object observed for the first time: the insert made its table.
                lock.withLock(ownedBy: self) {
                    runtimeObject._withUnsafeGuaranteedRef { registration.takeObjectTable(of: $0) }
                }
            }
            SchedulePoints.reach(.guardAfterRegister, registration)
            if !registration.state.transition(from: .pending, to: .active) {
                // Another thread unobserved while the add was running and already got `.removed` (the state is
                // `cancelled`); now that the runtime knows the registration, take it out.
                SchedulePoints.reach(.guardBeforeUnregister, registration)
                _ = runtimeObject._withUnsafeGuaranteedRef { $0.unregister(registration) }
                registration.state.set(.removed)
            }
        } else if let handle = backend.addObserver(
            registration, to: object, forKeyPath: keyPath, options: options.subtracting(.initial), context: context,
            dropsWithObject: !retainsObjects)
        {
            SchedulePoints.reach(.guardAfterRegister, registration)
            // Under the lock, like everything else that touches the handle (a removal, a backend reporting the
            // object's deinit, even one that does so while its add is still running). A registration that is its own
            // handle keeps none, so it never keeps itself alive.
            let activated = lock.withLock(ownedBy: self) { () -> Bool in
                guard registration.state.transition(from: .pending, to: .active) else { return false }
                if handle !== registration { registration.backendHandle = handle }
                return true
            }
            if !activated {
                // As above: an unobserve cancelled the registration while the backend was adding it (or the backend
                // reported the object gone meanwhile).
                SchedulePoints.reach(.guardBeforeUnregister, registration)
                backend.removeObservation(handle, from: object)
                registration.state.set(.removed)
            }
        } else {
            SchedulePoints.reach(.guardAfterRegister, registration)
            // A backend that refuses after `canObserve` said yes (GuardCore's runtime backend never does: a dotted
            // path whose chain broke meanwhile is registered and reads as nil). If another thread already removed the
            // reserved registration, this observe happened (and ended); otherwise it never did.
            let (wasCancelled, dropped, heldMeanwhile) = lock.withLock(ownedBy: self) {
                () -> (Bool, GuardRegistration?, ContiguousArray<HeldChanges.Entry>) in
                let wasCancelled = !registration.state.transition(from: .pending, to: .removed)
                registration.state.set(.removed)
                return (wasCancelled, dropFromTable(registration), takeHeldChanges(of: registration))
            }
            withExtendedLifetime((dropped, heldMeanwhile)) {}
            guard wasCancelled else {
                return invalid(.unobservableKeyPath, object: object, keyPath: keyPath, callSite: callSite)
            }
        }
        if let initialObserver {
            deliverInitial(to: registration, observer: initialObserver, object: object)
            deliverHeldChanges(of: registration, observer: initialObserver, object: object)
        }
        return .registered
    }

    /// Whether the runtime refused `keyPath` on `object` for a key path (its own or one it is declared to depend on)
    /// longer than it follows. Asked only of a key path already refused.
    private static func dependsOnOverlongKeyPath(_ keyPath: String, on object: KVOObject) -> Bool {
        ObservedClassInfo.keyPathInfo(for: keyPath, on: object)?.overlongKeyPath != nil
    }

    /// The `.initial` notification of a registration this call made: always delivered, exactly once, on the
    /// calling thread, even if another thread removed the registration meanwhile (this `observe` took effect before
    /// that removal, and the notification is part of it). A handler that unobserves from inside it is a clean
    /// removal.
    private func deliverInitial(to registration: GuardRegistration, observer: AnyObject, object: AnyObject) {
        let newValue =
            registration.options.contains(.new)
            ? boxNil(backend.currentValue(of: object, forKeyPath: registration.keyPath)) : nil
        SchedulePoints.reach(.guardBeforeHandler, registration)
        registration.invokeHandler(
            observer: observer, object: object,
            change: KeyValueChange(kind: .setting, keyPath: registration.keyPath, newValue: newValue))
    }

    // MARK: Unobserve

    func unobserve(_ object: AnyObject?, keyPath: String, callSite: GuardDiagnostic.CallSite) -> UnobserveResult {
        // Unretained, as in `observe`.
        guard let object = object.map(Unmanaged.passUnretained) else {
            return invalidRemoval(.nilObject, object: nil, keyPath: keyPath, callSite: callSite)
        }
        return object._withUnsafeGuaranteedRef { unobserve(present: $0, keyPath: keyPath, callSite: callSite) }
    }

    /// ``unobserve(_:keyPath:callSite:)`` of an object that is there, borrowed from the caller for the whole call.
    private func unobserve(
        present object: AnyObject, keyPath: String, callSite: GuardDiagnostic.CallSite
    ) -> UnobserveResult {
        let id = ObjectIdentifier(object)
        // Cast once, for the removal history and the runtime.
        let kvoObject = KVOObject.unretained(object)
        var sweepSurvivors = DeferredReleases()
        var gone = DeferredReleases()
        let observerGone = !observerLives
        // The retired registration comes back as a result, not through a captured variable: reading that again would
        // take a reference of its own.
        let (result, retired, unregistration) = lock.withLock(ownedBy: self) {
            () -> (UnobserveResult, GuardRegistration?, Unregistration) in
            let unlinked = registrations.update(id) { head in
                takeRegistrationsOfGoneObject(from: &head, notAbout: object, into: &gone)
                return Self.unlink(keyPath: keyPath, from: &head)
            }
            guard let registration = consume unlinked else {
                // Nothing registered under it: a key path that could never be registered is an invalid argument
                // (checked only now, since one that was registered is valid).
                if let reason = Self.invalidity(ofUnregistered: keyPath) { return (.invalid(reason), nil, .none) }
                let objectTable = RemovalHistory.tableAddress(of: kvoObject)
                let removedBefore = removed.contains(keyPath, of: id, object: object, objectTable: objectTable)
                return (removedBefore ? .alreadyRemoved : .notRegistered, nil, .none)
            }
            registrationTotal -= 1
            let unregistration = Self.retire(registration, observerGone: observerGone)
            removed.remember(
                keyPath, of: id, object: object, objectTable: RemovalHistory.tableAddress(of: kvoObject),
                keepingSurvivorsIn: &sweepSurvivors)
            // Handed over with the reference the table gave up, not copied (a copy costs a retain and a release).
            return (.removed, consume registration, unregistration)
        }
        if case .invalid(let reason) = result {
            return invalidRemoval(reason, object: object, keyPath: keyPath, callSite: callSite)
        }
        // Moved out of `retired`: bound as it is, it would take a reference of its own for the call.
        if let retired = consume retired, !unregistration.isNone {
            SchedulePoints.reach(.guardBeforeUnregister, retired)
            unregister(
                retired, unregistration, from: object, runtimeObject: runtimeHandlesKVOObjects ? kvoObject : nil)
        }
        if case .removed = result {} else {
            reportRemoval(result, object: object, keyPath: keyPath, callSite: callSite)
        }
        // `retired` (the user's handler, maybe the object), `gone` and `sweepSurvivors` are released here, after
        // unlocking.
        gone.release()
        sweepSurvivors.release()
        return result
    }

    func unobserve(_ object: AnyObject?, callSite: GuardDiagnostic.CallSite) -> UnobserveResult {
        guard let object else {
            return invalidRemoval(.nilObject, object: nil, keyPath: nil, callSite: callSite)
        }
        let id = ObjectIdentifier(object)
        let observerGone = !observerLives
        var outcome = lock.withLock(ownedBy: self) { () -> Retirement in
            var gone = DeferredReleases()
            let chain = registrations.update(id) { head -> GuardRegistration? in
                takeRegistrationsOfGoneObject(from: &head, notAbout: object, into: &gone)
                return head.take()
            }
            guard let newest = chain else {
                let result: UnobserveResult = removed.containsAny(of: id, object: object) ? .alreadyRemoved : .notRegistered
                var retirement = Retirement(result: result)
                retirement.releasedLater.append(contentsOf: &gone)
                return retirement
            }
            var retirement = Retirement(result: .removed, observerGone: observerGone)
            retirement.releasedLater.append(contentsOf: &gone)
            // A chain is newest first already (each registration is linked in front, under the lock that numbers it).
            Self.takeApart(chain: newest) { retirement.retire($0, object: object) }
            registrationTotal -= retirement.count
            retirement.forEachInRegistrationOrder { registration, _ in
                removed.remember(
                    registration.keyPath, of: id, object: object, keepingSurvivorsIn: &retirement.releasedLater)
            }
            return retirement
        }
        outcome.unregister(from: self)
        let result = outcome.result
        outcome.releaseInRegistrationOrder()
        reportRemoval(result, object: object, keyPath: nil, callSite: callSite)
        return result
    }

    /// Removes every registration. Never emits diagnostics: clearing an empty controller is not a mistake. Returns
    /// how many registrations it removed.
    ///
    /// With `rememberingRemovals` (the public ``ObservationController/unobserveAll()``), a later removal of any of
    /// them is a double removal. Without it, nothing is recorded: for a controller that is being released, or a
    /// token's, which nothing will ask to remove anything again (the removal history only ever answers removals).
    @discardableResult
    func unobserveAll(rememberingRemovals: Bool = true) -> Int {
        let observerGone = !observerLives
        var outcome = lock.withLock(ownedBy: self) { () -> Retirement in
            // Nothing registered (a controller released unused, a token invalidated twice): nothing to take apart.
            guard !registrations.isEmpty else { return Retirement(result: .removed) }
            var retirement = Retirement(result: .removed, observerGone: observerGone, expecting: registrationTotal)
            // Every chain is moved out of the table, and each registration out of its chain: no reference counting.
            registrations.takeAllValues { head in
                Self.takeApart(chain: head) { retirement.retire($0) }
            }
            registrationTotal = 0
            retirement.sortNewestFirst()
            guard rememberingRemovals else { return retirement }
            retirement.forEachInRegistrationOrder { registration, object in
                if let object {
                    removed.remember(
                        registration.keyPath, of: registration.objectID, object: object,
                        keepingSurvivorsIn: &retirement.releasedLater)
                } else if let table = registration.tableOfDeinitializingObject {
                    // Its object is running its deinit, where it may still unobserve itself: a double removal then.
                    removed.remember(
                        registration.keyPath, of: registration.objectID, deinitializingObjectTable: table,
                        keepingSurvivorsIn: &retirement.releasedLater)
                }
            }
            return retirement
        }
        outcome.unregister(from: self)
        let count = outcome.count
        outcome.releaseInRegistrationOrder()
        return count
    }

    /// The backend dropped `registration` because its weakly held object deinitialized.
    func observedObjectDidDeinit(_ registration: GuardRegistration) {
        let dropped = lock.withLock(ownedBy: self) { () -> (GuardRegistration?, (any BackendHandle)?) in
            registration.state.set(.removed)
            let handle = registration.backendHandle
            registration.backendHandle = nil
            return (dropFromTable(registration), handle)
        }
        withExtendedLifetime(dropped) {}
    }

    /// Whether the gone observer must be reported now for `registration` (the first time only).
    func noteObserverGoneReported(for registration: GuardRegistration) -> Bool {
        lock.withLock(ownedBy: self) {
            if registration.reportedObserverGone { return false }
            registration.reportedObserverGone = true
            return true
        }
    }

    // MARK: Queries

    var registrationCount: Int {
        lock.withLock(ownedBy: self) { registrationTotal }
    }

    func isObserving(_ object: AnyObject, keyPath: String) -> Bool {
        let id = ObjectIdentifier(object)
        return lock.withLock(ownedBy: self) {
            // A gone object's registration at this address is never `object`'s (see `liveChain(from:of:)`).
            guard let registration = Self.find(keyPath: keyPath, from: registrations.value(for: id)) else { return false }
            return retainsObjects || registration.isAbout(object)
        }
    }

    func observedKeyPaths(of object: AnyObject) -> [String] {
        let id = ObjectIdentifier(object)
        return lock.withLock(ownedBy: self) { liveChain(from: registrations.value(for: id), of: object).map(\.keyPath) }
            .sortedAsKeys()
    }

    var sink: (any DiagnosticSink)? {
        get { lock.withLock(ownedBy: self) { ownSink } }
        set {
            // The replaced sink is the user's: release it after unlocking.
            let replaced = lock.withLock(ownedBy: self) { () -> (any DiagnosticSink)? in
                let replaced = ownSink
                ownSink = newValue
                return replaced
            }
            withExtendedLifetime(replaced) {}
        }
    }

    // MARK: Helpers

    /// What taking a retired registration out of the backend needs, after unlocking.
    private enum Unregistration {
        /// Nothing: the registration was not active (its add is still running, or the backend dropped it).
        case none
        /// The registration is its own handle (GuardCore's runtime's observance): remove it.
        case itself
        /// Remove the backend's handle.
        case handle(any BackendHandle)

        var isNone: Bool {
            if case .none = self { return true }
            return false
        }
    }

    /// Lock held. Marks `registration` as leaving and, if it is active, takes its backend handle out: the caller
    /// tells the backend after unlocking (if the object still lives; otherwise the backend dropped it). A
    /// registration whose add is still running is cancelled instead: the observing thread removes it.
    /// `observerGone` says the removal began after the controller's observer was gone (see
    /// ``GuardRegistration/retiredWithObserverGone``).
    private static func retire(_ registration: GuardRegistration, observerGone: Bool) -> Unregistration {
        if registration.nextOnSameObject != nil { registration.nextOnSameObject = nil }
        switch registration.state.value {
        case .pending:
            // Before the state leaves `pending`: a delivery that sees it retired reads the flag after.
            if observerGone { registration.retiredWithObserverGone = true }
            // `pending → cancelled` races with the observing thread's `pending → active`; whichever wins decides.
            if registration.state.transition(from: .pending, to: .cancelled) { return .none }
            guard registration.state.value == .active else { return .none }
        case .active:
            // Only `pending` changes without the lock: an active registration stays active until this retires it,
            // so the common case needs no compare-and-exchange.
            if observerGone { registration.retiredWithObserverGone = true }
        case .cancelled, .removed:
            return .none
        }
        registration.state.set(.removed)
        guard let handle = registration.backendHandle else { return .itself }
        registration.backendHandle = nil
        return .handle(handle)
    }

    /// Lock released. Takes `registration` out of the backend as `unregistration` says; directly from GuardCore's
    /// runtime when the registration is its own handle there.
    private func unregister(
        _ registration: GuardRegistration, _ unregistration: Unregistration, from object: AnyObject
    ) {
        unregister(registration, unregistration, from: object, runtimeObject: runtimeObject(object))
    }

    /// ``unregister(_:_:from:)`` for a caller that cast `object` already: `runtimeObject` is
    /// ``runtimeObject(_:)`` of it.
    private func unregister(
        _ registration: GuardRegistration, _ unregistration: Unregistration, from object: AnyObject,
        runtimeObject: Unmanaged<KVOObject>?
    ) {
        switch unregistration {
        case .none:
            break
        case .itself:
            if let runtimeObject {
                _ = runtimeObject._withUnsafeGuaranteedRef { $0.unregister(registration) }
            } else {
                backend.removeObservation(registration, from: object)
            }
        case .handle(let handle):
            backend.removeObservation(handle, from: object)
        }
    }

    /// `object` as a ``KVOObject`` when the backend hands it to GuardCore's runtime; `nil` otherwise. Unretained: the
    /// caller keeps `object` alive while it uses the result (through `_withUnsafeGuaranteedRef`), so the cast costs
    /// the hot paths no reference counting.
    @inline(__always)
    private func runtimeObject(_ object: AnyObject) -> Unmanaged<KVOObject>? {
        runtimeHandlesKVOObjects ? KVOObject.unretained(object) : nil
    }

    /// Registrations taken out of the table under the lock (by a bulk removal), and what must happen to them after
    /// unlocking: unregistering from the backend, then releasing everything kept, both in registration order (see
    /// ``releaseInRegistrationOrder()``).
    private struct Retirement {
        /// One retired registration and what taking it out of the backend needs.
        private struct Entry {
            let registration: GuardRegistration
            /// The registration's ``GuardRegistration/sequence``, kept here so sorting reads no registration.
            let sequence: UInt64
            /// Set to `.none` once released (see ``releaseInRegistrationOrder()``).
            var unregistration: Unregistration
            /// A weakly held object, loaded under the lock so it stays alive until it is unregistered from; `nil`
            /// for a strongly held one (its registration holds it) and for one that is gone (nothing to remove the
            /// registration from).
            var loadedObject: AnyObject?

            /// The object to unregister from, if it lives.
            var object: AnyObject? {
                loadedObject ?? registration.strongObject
            }
        }

        let result: UnobserveResult
        /// Whether the removal began after the controller's observer was gone.
        let observerGone: Bool
        /// Newest first, so taking them from the end gives them in the order they were made.
        private var entries: ContiguousArray<Entry> = []
        /// Released after unlocking, before the registrations: objects a sweep of the removal history found alive
        /// (see ``RemovalHistory/remember(_:of:object:keepingSurvivorsIn:)``), and registrations of a dead object
        /// that had the address of the object a removal was about.
        var releasedLater = DeferredReleases()

        /// A retirement with `result`, by a removal that began after the observer was gone if `observerGone`, with
        /// room for `expectedCount` registrations.
        init(result: UnobserveResult, observerGone: Bool = false, expecting expectedCount: Int = 0) {
            self.result = result
            self.observerGone = observerGone
            if expectedCount > 0 { entries.reserveCapacity(expectedCount) }
        }

        /// How many registrations it retired.
        var count: Int { entries.count }

        /// Lock held. Retires `registration` (see ``ControllerCore/retire(_:)``), taking over the caller's reference.
        /// Its object is `object` when the caller has it (alive); otherwise a weakly held object is loaded (`nil` once
        /// it is gone, or running its deinit).
        mutating func retire(_ registration: consuming GuardRegistration, object: AnyObject? = nil) {
            let unregistration = ControllerCore.retire(registration, observerGone: observerGone)
            let loadedObject = registration.holdsObjectWeakly ? (object ?? registration.object) : nil
            let sequence = registration.sequence
            entries.append(
                Entry(
                    registration: registration, sequence: sequence, unregistration: unregistration,
                    loadedObject: loadedObject))
        }

        /// Lock held. Puts the retired registrations newest first (a bulk removal takes them in table order).
        mutating func sortNewestFirst() {
            entries.sort { $0.sequence > $1.sequence }
        }

        /// Lock held. Calls `body` with each retired registration and its object (if it lives), in the order they
        /// were made.
        func forEachInRegistrationOrder(_ body: (GuardRegistration, AnyObject?) -> Void) {
            for index in entries.indices.reversed() { body(entries[index].registration, entries[index].object) }
        }

        /// Lock released. Unregisters from the backend, in registration order.
        func unregister(from core: ControllerCore) {
            for index in entries.indices.reversed() where !entries[index].unregistration.isNone {
                if let object = entries[index].loadedObject {
                    SchedulePoints.reach(.guardBeforeUnregister, entries[index].registration)
                    core.unregister(entries[index].registration, entries[index].unregistration, from: object)
                } else if let object = entries[index].registration.unretainedStrongObject {
                    // Held by the registration, which this retirement holds.
                    SchedulePoints.reach(.guardBeforeUnregister, entries[index].registration)
                    object._withUnsafeGuaranteedRef {
                        core.unregister(entries[index].registration, entries[index].unregistration, from: $0)
                    }
                }
            }
        }

        /// Lock released, after ``unregister(from:)``. Releases the retired registrations one by one in the order
        /// they were made, so the deinits those releases set off (of handlers, what they captured, observed objects
        /// the controller retained) run in an order that does not depend on object addresses: a run replayed under
        /// the same schedule takes the same steps. Everything else kept (``releasedLater``, then the backend handles
        /// and loaded objects, in registration order) is released first, while each registration is still held here,
        /// so none of those releases is the last one of a retired registration.
        mutating func releaseInRegistrationOrder() {
            releasedLater.release()
            for index in entries.indices.reversed() {
                if entries[index].loadedObject != nil { entries[index].loadedObject = nil }
                if case .handle = entries[index].unregistration { entries[index].unregistration = .none }
            }
            while let entry = entries.popLast() {
                _ = consume entry
            }
        }
    }

    /// Lock held. Makes `registration` the newest of its object's chain at `head`, unless the chain already has one
    /// for its key path (then returns `false` and changes nothing).
    private static func link(_ registration: GuardRegistration, into head: inout GuardRegistration?) -> Bool {
        // A new registration links to nothing yet: with no chain, nothing to compare or link (setting `nil` again
        // would only cost a release call).
        if let head {
            if containsKeyPath(of: registration.info, from: head) { return false }
            registration.nextOnSameObject = head
        }
        head = registration
        return true
    }

    /// Lock held. Takes the registration for `keyPath` out of the chain at `head` (emptying the slot with the
    /// chain) and returns it.
    private static func unlink(keyPath: String, from head: inout GuardRegistration?) -> GuardRegistration? {
        unlink(from: &head) { $0.keyPath.isSameKey(as: keyPath) }
    }

    private static func unlink(
        from head: inout GuardRegistration?, where matches: (GuardRegistration) -> Bool
    ) -> GuardRegistration? {
        guard let first = head else { return nil }
        if matches(first) {
            head = first.nextOnSameObject
            first.nextOnSameObject = nil
            return first
        }
        var previous = first
        while let current = previous.nextOnSameObject {
            if matches(current) {
                previous.nextOnSameObject = current.nextOnSameObject
                current.nextOnSameObject = nil
                return current
            }
            previous = current
        }
        return nil
    }

    /// Lock held. Whether the chain at `head` has a registration for the key path of `info` (told apart by hash
    /// first: registrations of other keys of the object cost a word comparison each, not a string comparison).
    private static func containsKeyPath(of info: KeyPathInfo, from head: GuardRegistration) -> Bool {
        var current: GuardRegistration? = head
        while let registration = current {
            if registration.info.isKeyPath(info.keyPath, hash: info.hash) { return true }
            current = registration.nextOnSameObject
        }
        return false
    }

    private static func find(keyPath: String, from head: GuardRegistration?) -> GuardRegistration? {
        var current = head
        while let registration = current {
            if registration.keyPath.isSameKey(as: keyPath) { return registration }
            current = registration.nextOnSameObject
        }
        return nil
    }

    /// Lock held. Takes the chain starting at `head` apart, handing `body` each of its registrations, newest first,
    /// with the reference that held it (the table's for the head, the newer registration's link for the others):
    /// moved, not copied.
    private static func takeApart(
        chain head: consuming GuardRegistration?, _ body: (consuming GuardRegistration) -> Void
    ) {
        var next = head
        while let registration = next.take() {
            next = registration.nextOnSameObject.take()
            body(registration)
        }
    }

    /// Lock held. The chain starting at `head`, newest first.
    private static func chain(from head: GuardRegistration?) -> [GuardRegistration] {
        var all: [GuardRegistration] = []
        var current = head
        while let registration = current {
            all.append(registration)
            current = registration.nextOnSameObject
        }
        return all
    }

    /// Lock held. With weakly held objects, takes out of the chain at `head` (the chain of `object`'s address) the
    /// registrations of an object that is gone but whose backend has not dropped them yet (a backend may learn of a
    /// deinit late), so that a new object at the same address never inherits them: they are retired without a
    /// removal (there is no object to remove them from) and appended to `gone`, for the caller to release after
    /// unlocking. Loading a registration's weakly held object here gives either `nil` or `object` itself, which the
    /// caller keeps alive, so no deinit can start under the lock. A weakly held ``KVOObject`` that is running its own
    /// deinit is not gone (see ``GuardRegistration/isAbout(_:)``): it may unobserve itself there.
    private func takeRegistrationsOfGoneObject(
        from head: inout GuardRegistration?, notAbout object: AnyObject, into gone: inout DeferredReleases
    ) {
        guard !retainsObjects, head != nil else { return }
        while let registration = Self.unlink(from: &head, where: { !$0.isAbout(object) }) {
            registration.state.set(.removed)
            registrationTotal -= 1
            gone.append(registration)
        }
    }

    /// Lock held. The registrations in the chain at `head` that are about `object`: with weakly held objects, those
    /// of a gone object at the same address are left out (see ``takeRegistrationsOfGoneObject(from:notAbout:into:)``).
    private func liveChain(from head: GuardRegistration?, of object: AnyObject) -> [GuardRegistration] {
        let all = Self.chain(from: head)
        return retainsObjects ? all : all.filter { $0.isAbout(object) }
    }

    /// Lock held. Takes `registration` out of the table if it is still there and returns it (for the caller to
    /// release after unlocking).
    private func dropFromTable(_ registration: GuardRegistration) -> GuardRegistration? {
        let dropped = registrations.update(registration.objectID) { head in
            Self.unlink(from: &head, where: { $0 === registration })
        }
        guard let dropped else { return nil }
        registrationTotal -= 1
        return dropped
    }

    /// Why `keyPath` could never have been registered, if it could not: it is not well formed, or too long.
    private static func invalidity(ofUnregistered keyPath: String) -> GuardDiagnostic.InvalidArgument? {
        if KeyPathSyntax.hasMoreComponents(than: KeyPathSyntax.maximumGuardedComponents, keyPath) {
            return .keyPathTooLong
        }
        return KeyPathSyntax.isWellFormed(keyPath) ? nil : .emptyKeyPath
    }

    private func reportRemoval(
        _ result: UnobserveResult, object: AnyObject, keyPath: String?, callSite: GuardDiagnostic.CallSite
    ) {
        switch result {
        case .alreadyRemoved: emit(.doubleRemoval, object: object, keyPath: keyPath, callSite: callSite)
        case .notRegistered: emit(.removalOfUnregistered, object: object, keyPath: keyPath, callSite: callSite)
        case .removed, .invalid: break
        }
    }

    private func invalid(
        _ reason: GuardDiagnostic.InvalidArgument, object: AnyObject?, keyPath: String?,
        callSite: GuardDiagnostic.CallSite
    ) -> ObserveResult {
        emit(.invalidArgument, reason: reason, object: object, keyPath: keyPath, callSite: callSite)
        return .invalid(reason)
    }

    private func invalidRemoval(
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
