extension ControllerCore {
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
        let (result, retired, unregistration) = withLock {
            () -> (UnobserveResult, GuardRegistration?, Unregistration) in
            let unlinked = registrations.update(id) { head in
                takeRegistrationsOfGoneObject(from: &head, notAbout: object, into: &gone)
                return RegistrationChain.unlink(keyPath: keyPath, from: &head)
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
        var outcome = withLock { () -> Retirement in
            var gone = DeferredReleases()
            let chain = registrations.update(id) { head -> GuardRegistration? in
                takeRegistrationsOfGoneObject(from: &head, notAbout: object, into: &gone)
                return head.take()
            }
            guard let newest = chain else {
                let result: UnobserveResult =
                    removed.containsAny(of: id, object: object) ? .alreadyRemoved : .notRegistered
                var retirement = Retirement(result: result)
                retirement.releasedLater.append(contentsOf: &gone)
                return retirement
            }
            var retirement = Retirement(result: .removed, observerGone: observerGone)
            retirement.releasedLater.append(contentsOf: &gone)
            // A chain is newest first already (each registration is linked in front, under the lock that numbers it).
            RegistrationChain.takeApart(chain: newest) { retirement.retire($0, object: object) }
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
        var outcome = withLock { () -> Retirement in
            // Nothing registered (a controller released unused, a token invalidated twice): nothing to take apart.
            guard !registrations.isEmpty else { return Retirement(result: .removed) }
            var retirement = Retirement(result: .removed, observerGone: observerGone, expecting: registrationTotal)
            // Every chain is moved out of the table, and each registration out of its chain: no reference counting.
            registrations.takeAllValues { head in
                RegistrationChain.takeApart(chain: head) { retirement.retire($0) }
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
        let dropped = withLock { () -> (GuardRegistration?, (any BackendHandle)?) in
            registration.state.set(.removed)
            let handle = registration.backendHandle
            registration.backendHandle = nil
            return (dropFromTable(registration), handle)
        }
        withExtendedLifetime(dropped) {}
    }

    /// Whether the gone observer must be reported now for `registration` (the first time only).
    func noteObserverGoneReported(for registration: GuardRegistration) -> Bool {
        withLock {
            if registration.reportedObserverGone { return false }
            registration.reportedObserverGone = true
            return true
        }
    }

    // MARK: Retiring

    /// What taking a retired registration out of the backend needs, after unlocking.
    enum Unregistration {
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
    static func retire(_ registration: GuardRegistration, observerGone: Bool) -> Unregistration {
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
    func unregister(
        _ registration: GuardRegistration, _ unregistration: Unregistration, from object: AnyObject
    ) {
        unregister(registration, unregistration, from: object, runtimeObject: runtimeObject(object))
    }

    /// ``unregister(_:_:from:)`` for a caller that cast `object` already: `runtimeObject` is
    /// ``runtimeObject(_:)`` of it.
    func unregister(
        _ registration: GuardRegistration, _ unregistration: Unregistration, from object: AnyObject,
        runtimeObject: Unmanaged<KVOObject>?
    ) {
        switch unregistration {
        case .none:
            break
        case .itself:
            if let runtimeObject {
                _ = runtimeObject._withUnsafeGuaranteedRef { $0.removeObservance(registration) }
            } else {
                backend.removeObservation(registration, from: object)
            }
        case .handle(let handle):
            backend.removeObservation(handle, from: object)
        }
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
}
