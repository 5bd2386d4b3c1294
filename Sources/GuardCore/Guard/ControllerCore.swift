/// The platform-free state and logic of one ``ObservationController``: deduplication, removal bookkeeping, the
/// `.initial` race, teardown and diagnostics. It talks to observed objects only through a
/// ``KeyValueObservingBackend``.
///
/// Every method is thread-safe. The lock guards the tables only; the backend, handlers and diagnostic sinks are
/// always called with it released, and registrations (which own the user's handler, what it captures, and possibly
/// the observed object) are released only after unlocking, so a handler may call back into the controller (or
/// release it), and a deinit that a release triggers may re-enter the controller.
final class ControllerCore: @unchecked Sendable {
    private let lock = Lock()
    /// The observer, held weakly: a controller never keeps its observer alive.
    weak var observer: AnyObject?
    let observerType: String
    let retainsObjects: Bool
    let backend: any KeyValueObservingBackend
    private var ownSink: (any DiagnosticSink)?
    /// Live registrations by object, then key path.
    private var registrations: [ObjectIdentifier: [String: GuardRegistration]] = [:]
    private var registrationTotal = 0
    /// Numbers registrations in the order they were made, so bulk removals unregister in a reproducible order.
    private var nextSequence: UInt64 = 0
    /// What was removed before, to tell a double removal from the removal of something never registered.
    private var removed = RemovalHistory()

    init(observer: AnyObject, retainsObjects: Bool, backend: any KeyValueObservingBackend, sink: (any DiagnosticSink)?) {
        self.observer = observer
        self.observerType = ObjectDescription.typeName(type(of: observer))
        self.retainsObjects = retainsObjects
        self.backend = backend
        self.ownSink = sink
    }

    // MARK: Observe

    func observe(
        _ object: AnyObject?, keyPath: String, options: KeyValueObservingOptions, context: UnsafeMutableRawPointer?,
        callSite: GuardDiagnostic.CallSite, handler: @escaping GuardRegistration.Handler
    ) -> ObserveResult {
        guard let object else {
            return invalid(.nilObject, object: nil, keyPath: keyPath, callSite: callSite)
        }
        // Held for the whole call, so the `.initial` notification always has an observer to go to.
        guard let observer else {
            return invalid(.observerDeallocated, object: object, keyPath: keyPath, callSite: callSite)
        }
        guard KeyPathSyntax.isWellFormed(keyPath) else {
            return invalid(.emptyKeyPath, object: object, keyPath: keyPath, callSite: callSite)
        }
        guard backend.canObserve(object, forKeyPath: keyPath) else {
            return invalid(.unobservableKeyPath, object: object, keyPath: keyPath, callSite: callSite)
        }
        let registration = GuardRegistration(
            object: object, keyPath: keyPath, options: options, context: context, retainsObject: retainsObjects,
            handler: handler, callSite: callSite, core: self)
        let key = registration.key
        let reserved = lock.withLock { () -> Bool in
            if registrations[key.object]?[keyPath] != nil { return false }
            registration.sequence = nextSequence
            nextSequence &+= 1
            registrations[key.object, default: [:]][keyPath] = registration
            registrationTotal += 1
            removed.forget(key)
            return true
        }
        guard reserved else {
            emit(.duplicateObservation, object: object, keyPath: keyPath, callSite: callSite)
            return .duplicate
        }

        // Registered without `.initial`: the registration must exist before the initial value is read, so a change
        // that completes after this call began is in that value or delivered as a change, never lost.
        SchedulePoints.reach(.guardBeforeRegister)
        let handle = backend.addObserver(
            registration, to: object, forKeyPath: keyPath, options: options.subtracting(.initial), context: context,
            dropsWithObject: !retainsObjects)
        SchedulePoints.reach(.guardAfterRegister)

        if let handle {
            let cancelledMeanwhile = lock.withLock { () -> Bool in
                registration.backendHandle = handle
                guard registration.state.value == .pending else { return true }
                registration.state.set(.active)
                return false
            }
            if cancelledMeanwhile {
                // Another thread unobserved while the add was running and already got `.removed`; now that the
                // backend knows the registration, take it out.
                SchedulePoints.reach(.guardBeforeUnregister)
                backend.removeObservation(handle, from: object)
                registration.state.set(.removed)
            }
        } else {
            // Rare: the key path stopped being observable between the check and the add (a dotted path's middle
            // object was replaced meanwhile). If another thread already removed the reserved registration, this
            // observe happened (and ended); otherwise it never did.
            let (wasCancelled, dropped) = lock.withLock { () -> (Bool, GuardRegistration?) in
                let wasCancelled = registration.state.value == .cancelled
                registration.state.set(.removed)
                let dropped = registrations[key.object]?[keyPath] === registration ? dropFromTable(key) : nil
                return (wasCancelled, dropped)
            }
            withExtendedLifetime(dropped) {}
            guard wasCancelled else {
                return invalid(.unobservableKeyPath, object: object, keyPath: keyPath, callSite: callSite)
            }
        }
        if options.contains(.initial) {
            deliverInitial(to: registration, observer: observer, object: object)
        }
        return .registered
    }

    /// The `.initial` notification of a registration this call made: always delivered, exactly once, on the
    /// calling thread, even if another thread removed the registration meanwhile (this `observe` took effect before
    /// that removal, and the notification is part of it). A handler that unobserves from inside it is a clean
    /// removal.
    private func deliverInitial(to registration: GuardRegistration, observer: AnyObject, object: AnyObject) {
        let newValue =
            registration.options.contains(.new)
            ? boxNil(backend.currentValue(of: object, forKeyPath: registration.keyPath)) : nil
        SchedulePoints.reach(.guardBeforeHandler)
        registration.handler(
            observer, object, KeyValueChange(kind: .setting, keyPath: registration.keyPath, newValue: newValue))
    }

    // MARK: Unobserve

    func unobserve(_ object: AnyObject?, keyPath: String, callSite: GuardDiagnostic.CallSite) -> UnobserveResult {
        guard let object else {
            return invalidRemoval(.nilObject, object: nil, keyPath: keyPath, callSite: callSite)
        }
        guard KeyPathSyntax.isWellFormed(keyPath) else {
            return invalidRemoval(.emptyKeyPath, object: object, keyPath: keyPath, callSite: callSite)
        }
        let key = RegistrationKey(object: ObjectIdentifier(object), keyPath: keyPath)
        let outcome = lock.withLock { () -> Retirement in
            guard registrations[key.object]?[keyPath] != nil else {
                return Retirement(result: removed.contains(key, object: object) ? .alreadyRemoved : .notRegistered)
            }
            var retirement = Retirement(result: .removed)
            retirement.retire(dropFromTable(key)!, object: object)
            removed.remember(key, object: object)
            return retirement
        }
        outcome.unregister(with: backend)
        reportRemoval(outcome.result, object: object, keyPath: keyPath, callSite: callSite)
        return outcome.result
    }

    func unobserve(_ object: AnyObject?, callSite: GuardDiagnostic.CallSite) -> UnobserveResult {
        guard let object else {
            return invalidRemoval(.nilObject, object: nil, keyPath: nil, callSite: callSite)
        }
        let id = ObjectIdentifier(object)
        let outcome = lock.withLock { () -> Retirement in
            guard let byKeyPath = registrations[id], !byKeyPath.isEmpty else {
                return Retirement(result: removed.containsAny(of: id, object: object) ? .alreadyRemoved : .notRegistered)
            }
            var retirement = Retirement(result: .removed)
            for registration in byKeyPath.values.sorted(by: { $0.sequence < $1.sequence }) {
                retirement.retire(dropFromTable(registration.key)!, object: object)
                removed.remember(registration.key, object: object)
            }
            return retirement
        }
        outcome.unregister(with: backend)
        reportRemoval(outcome.result, object: object, keyPath: nil, callSite: callSite)
        return outcome.result
    }

    /// Removes every registration. Never emits diagnostics: clearing an empty controller is not a mistake. Returns
    /// how many registrations it removed.
    @discardableResult
    func unobserveAll() -> Int {
        let outcome = lock.withLock { () -> Retirement in
            var retirement = Retirement(result: .removed)
            let all = registrations.values.flatMap(\.values).sorted { $0.sequence < $1.sequence }
            for registration in all {
                let object = registration.object
                if let object { removed.remember(registration.key, object: object) }
                retirement.retire(registration, object: object)
            }
            registrations = [:]
            registrationTotal = 0
            return retirement
        }
        outcome.unregister(with: backend)
        return outcome.registrations.count
    }

    /// The backend dropped `registration` because its weakly held object deinitialized.
    func observedObjectDidDeinit(_ registration: GuardRegistration) {
        let dropped = lock.withLock { () -> GuardRegistration? in
            registration.state.set(.removed)
            guard registrations[registration.key.object]?[registration.keyPath] === registration else { return nil }
            return dropFromTable(registration.key)
        }
        withExtendedLifetime(dropped) {}
    }

    // MARK: Queries

    var registrationCount: Int {
        lock.withLock { registrationTotal }
    }

    func isObserving(_ object: AnyObject, keyPath: String) -> Bool {
        lock.withLock { registrations[ObjectIdentifier(object)]?[keyPath] != nil }
    }

    func observedKeyPaths(of object: AnyObject) -> [String] {
        lock.withLock { registrations[ObjectIdentifier(object)].map { Array($0.keys).sorted() } ?? [] }
    }

    var sink: (any DiagnosticSink)? {
        get { lock.withLock { ownSink } }
        set {
            // The replaced sink is the user's: release it after unlocking.
            let replaced = lock.withLock { () -> (any DiagnosticSink)? in
                let replaced = ownSink
                ownSink = newValue
                return replaced
            }
            withExtendedLifetime(replaced) {}
        }
    }

    // MARK: Helpers

    /// Registrations taken out of the table under the lock, and what must happen to them after unlocking: backend
    /// handles to unregister (in registration order), then the registrations themselves to release.
    private struct Retirement {
        let result: UnobserveResult
        private(set) var registrations: [GuardRegistration] = []
        private var removals: [(any BackendHandle, AnyObject)] = []

        init(result: UnobserveResult) {
            self.result = result
        }

        /// Lock held. Marks `registration` as leaving and notes its backend handle if the backend must be told now
        /// (not if the add is still running: that thread removes it).
        mutating func retire(_ registration: GuardRegistration, object: AnyObject?) {
            registrations.append(registration)
            switch registration.state.value {
            case .pending:
                registration.state.set(.cancelled)
            case .active:
                registration.state.set(.removed)
                if let handle = registration.backendHandle, let object { removals.append((handle, object)) }
            case .cancelled, .removed:
                break
            }
        }

        /// Lock released. Unregisters from the backend, then lets the registrations go.
        func unregister(with backend: any KeyValueObservingBackend) {
            for (handle, object) in removals {
                SchedulePoints.reach(.guardBeforeUnregister)
                backend.removeObservation(handle, from: object)
            }
            withExtendedLifetime(registrations) {}
        }
    }

    /// Lock held. Takes `key`'s registration out of the table and returns it (for the caller to release after
    /// unlocking).
    private func dropFromTable(_ key: RegistrationKey) -> GuardRegistration? {
        guard let registration = registrations[key.object]?.removeValue(forKey: key.keyPath) else { return nil }
        registrationTotal -= 1
        if registrations[key.object]?.isEmpty == true { registrations[key.object] = nil }
        return registration
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
