/// The platform-free state and logic of one ``ObservationController``: deduplication, removal bookkeeping, the
/// `.initial` race, teardown and diagnostics. It talks to observed objects only through a
/// ``KeyValueObservingBackend``.
///
/// Every method is thread-safe. The lock guards the tables only; the backend, handlers and diagnostic sinks are
/// always called with it released, so a handler may call back into the controller (or release it) freely.
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
            registrations[key.object, default: [:]][keyPath] = registration
            registrationTotal += 1
            removed.forget(key)
            return true
        }
        guard reserved else {
            emit(.duplicateObservation, object: object, keyPath: keyPath, callSite: callSite)
            return .duplicate
        }

        // The backend may deliver `.initial` from inside this call; the handler may unobserve (state → cancelled).
        SchedulePoints.reach(.guardBeforeRegister)
        let observation = backend.addObserver(
            registration, to: object, forKeyPath: keyPath, options: options, context: context,
            dropsWithObject: !retainsObjects)
        SchedulePoints.reach(.guardAfterRegister)

        guard let observation else {
            // Rare: the key path stopped being observable between the check and the add (a dotted path's middle
            // object was replaced meanwhile).
            lock.withLock {
                if registrations[key.object]?[keyPath] === registration {
                    dropFromTable(key)
                }
                registration.state.set(.removed)
            }
            return invalid(.unobservableKeyPath, object: object, keyPath: keyPath, callSite: callSite)
        }
        let cancelledMeanwhile = lock.withLock { () -> Bool in
            registration.backendHandle = observation
            guard registration.state.value == .pending else { return true }
            registration.state.set(.active)
            return false
        }
        if cancelledMeanwhile {
            // Someone (possibly our own `.initial` handler) unobserved while the add was running; they already
            // got `.removed`. Now that the backend knows the registration, take it out.
            backend.removeObservation(observation, from: object)
            registration.state.set(.removed)
        }
        return .registered
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
        let outcome = lock.withLock { () -> (observation: (any BackendHandle)?, result: UnobserveResult) in
            guard let registration = registrations[key.object]?[keyPath] else {
                return (nil, removed.contains(key, object: object) ? .alreadyRemoved : .notRegistered)
            }
            dropFromTable(key)
            removed.remember(key, object: object)
            return (retire(registration), .removed)
        }
        if let observation = outcome.observation {
            SchedulePoints.reach(.guardBeforeUnregister)
            backend.removeObservation(observation, from: object)
        }
        reportRemoval(outcome.result, object: object, keyPath: keyPath, callSite: callSite)
        return outcome.result
    }

    func unobserve(_ object: AnyObject?, callSite: GuardDiagnostic.CallSite) -> UnobserveResult {
        guard let object else {
            return invalidRemoval(.nilObject, object: nil, keyPath: nil, callSite: callSite)
        }
        let id = ObjectIdentifier(object)
        let outcome = lock.withLock { () -> (observations: [any BackendHandle], result: UnobserveResult) in
            guard let byKeyPath = registrations[id], !byKeyPath.isEmpty else {
                return ([], removed.containsAny(of: id, object: object) ? .alreadyRemoved : .notRegistered)
            }
            var observations: [any BackendHandle] = []
            for (keyPath, registration) in byKeyPath {
                let key = RegistrationKey(object: id, keyPath: keyPath)
                dropFromTable(key)
                removed.remember(key, object: object)
                if let observation = retire(registration) { observations.append(observation) }
            }
            return (observations, .removed)
        }
        for observation in outcome.observations {
            SchedulePoints.reach(.guardBeforeUnregister)
            backend.removeObservation(observation, from: object)
        }
        reportRemoval(outcome.result, object: object, keyPath: nil, callSite: callSite)
        return outcome.result
    }

    /// Removes every registration. Never emits diagnostics: clearing an empty controller is not a mistake.
    func unobserveAll() {
        let retired = lock.withLock { () -> [(any BackendHandle, AnyObject)] in
            var retired: [(any BackendHandle, AnyObject)] = []
            for (_, byKeyPath) in registrations {
                for (_, registration) in byKeyPath {
                    let object = registration.object
                    if let object { removed.remember(registration.key, object: object) }
                    if let observation = retire(registration), let object {
                        retired.append((observation, object))
                    }
                }
            }
            registrations = [:]
            registrationTotal = 0
            return retired
        }
        for (observation, object) in retired {
            SchedulePoints.reach(.guardBeforeUnregister)
            backend.removeObservation(observation, from: object)
        }
    }

    /// The backend dropped `registration` because its weakly held object deinitialized.
    func observedObjectDidDeinit(_ registration: GuardRegistration) {
        lock.withLock {
            if registrations[registration.key.object]?[registration.keyPath] === registration {
                dropFromTable(registration.key)
            }
            registration.state.set(.removed)
        }
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
        set { lock.withLock { ownSink = newValue } }
    }

    // MARK: Helpers (lock held where noted)

    /// Lock held. Marks `registration` as leaving and returns its backend handle if the backend must be told now;
    /// `nil` if the add is still running (that thread will remove it).
    private func retire(_ registration: GuardRegistration) -> (any BackendHandle)? {
        switch registration.state.value {
        case .pending:
            registration.state.set(.cancelled)
            return nil
        case .active:
            registration.state.set(.removed)
            return registration.backendHandle
        case .cancelled, .removed:
            return nil
        }
    }

    /// Lock held.
    private func dropFromTable(_ key: RegistrationKey) {
        guard registrations[key.object]?.removeValue(forKey: key.keyPath) != nil else { return }
        registrationTotal -= 1
        if registrations[key.object]?.isEmpty == true { registrations[key.object] = nil }
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
