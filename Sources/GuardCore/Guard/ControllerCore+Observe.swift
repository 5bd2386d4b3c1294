extension ControllerCore {
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
    /// the caller for the whole call (so the call takes no reference of its own to it): validates, reserves the
    /// registration in the table, adds it to the backend, then delivers the initial notification.
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
        let (observerLives, initialObserver) = observerForObserve(options)
        guard observerLives else {
            return invalid(.observerDeallocated, object: object, keyPath: keyPath, callSite: callSite)
        }
        // The observer held for `.initial` goes when this call returns: an explorer counts that as a drop.
        defer { if initialObserver != nil { droppedObserver() } }
        guard !KeyPathSyntax.hasMoreComponents(than: KeyPathSyntax.maximumGuardedComponents, keyPath) else {
            return invalid(.keyPathTooLong, object: object, keyPath: keyPath, callSite: callSite)
        }
        let runtimeObject = runtimeObject(object)
        guard let info = keyPathInfo(keyPath, on: object, runtimeObject: runtimeObject) else {
            let reason = refusal(of: keyPath, on: object, runtimeObject: runtimeObject)
            return invalid(reason, object: object, keyPath: keyPath, callSite: callSite)
        }
        // The setup borrows `object` (which the caller keeps alive for the whole call) and takes `info` over, so the
        // call takes no reference to either of its own.
        let registration = makeRegistration(
            GuardRegistration.Setup(
                object: object, info: consume info, options: options, context: context,
                retainsObservedObject: retainsObservedObjects, callSite: callSite, core: self))
        guard reserve(registration, for: object) else {
            emit(.duplicateObservation, object: object, keyPath: keyPath, callSite: callSite)
            return .duplicate
        }
        guard
            add(
                registration, to: object, runtimeObject: runtimeObject, keyPath: keyPath, options: options,
                context: context)
        else {
            return invalid(.unobservableKeyPath, object: object, keyPath: keyPath, callSite: callSite)
        }
        if let initialObserver {
            deliverInitial(to: registration, observer: initialObserver, object: object)
            deliverHeldChanges(of: registration, observer: initialObserver, object: object)
        }
        return .registered
    }

    /// Whether the observer lives, for an `observe` with `options`. With `.initial`, the observer comes with the
    /// answer, to be held for the whole call, so the initial notification always has an observer to go to; without,
    /// it is only asked about (no handler runs in the call).
    @inline(__always)
    private func observerForObserve(_ options: KeyValueObservingOptions) -> (lives: Bool, initial: AnyObject?) {
        guard options.contains(.initial) else { return (observerLives, nil) }
        guard let observer else { return (false, nil) }
        return (true, observer)
    }

    // MARK: Validation

    /// The info of `keyPath` on `object` if it can be observed there; `nil` if not (``refusal(of:on:runtimeObject:)``
    /// says why). With GuardCore's runtime behind `object` (`runtimeObject`), the runtime's check keeps what it found
    /// for the add; a key path it accepts is well formed.
    @inline(__always)
    private func keyPathInfo(
        _ keyPath: String, on object: AnyObject, runtimeObject: Unmanaged<KVOObject>?
    ) -> KeyPathInfo? {
        if let runtimeObject {
            return runtimeObject._withUnsafeGuaranteedRef { runtime.info(for: keyPath, on: $0) }
        }
        guard KeyPathSyntax.isWellFormed(keyPath), backend.canObserve(object, forKeyPath: keyPath) else { return nil }
        return KeyPathInfo(keyPath: keyPath, triggerKeys: [KeyPathSyntax.firstKey(of: keyPath)])
    }

    /// Why ``keyPathInfo(_:on:runtimeObject:)`` refused `keyPath` on `object`. Asked only of a refused key path.
    private func refusal(
        of keyPath: String, on object: AnyObject, runtimeObject: Unmanaged<KVOObject>?
    ) -> GuardDiagnostic.InvalidArgument {
        guard KeyPathSyntax.isWellFormed(keyPath) else { return .emptyKeyPath }
        guard let runtimeObject else { return .unobservableKeyPath }
        // The runtime refuses a key path (its own or one it is declared to depend on) longer than it follows.
        let overlong = runtimeObject._withUnsafeGuaranteedRef {
            ObservedClassInfo.keyPathInfo(for: keyPath, on: $0)?.overlongKeyPath != nil
        }
        return overlong ? .keyPathTooLong : .unobservableKeyPath
    }

    // MARK: Reservation

    /// Puts `registration` into the table as the newest of its object's, numbered, unless the object already has
    /// one for its key path (then returns `false` and changes nothing). Registrations of a dead object that had this
    /// address are taken out on the way and released after unlocking.
    private func reserve(_ registration: GuardRegistration, for object: AnyObject) -> Bool {
        var gone = DeferredReleases()
        let reserved = withLock { () -> Bool in
            let linked = registrations.update(registration.objectID) { head in
                takeRegistrationsOfGoneObject(from: &head, notAbout: object, into: &gone)
                return RegistrationChain.link(registration, into: &head)
            }
            guard linked else { return false }
            registration.sequence = nextSequence
            nextSequence &+= 1
            registrationTotal += 1
            return true
        }
        gone.release()
        return reserved
    }

    // MARK: Adding to the backend

    /// Adds the reserved `registration` to the backend and activates it, or takes it out again if an unobserve
    /// cancelled it meanwhile. Returns `false` only if the backend refused it and no unobserve had removed it (then
    /// this observe never happened).
    ///
    /// Added without `.initial`: the registration must exist before the initial value is read, so a change that
    /// completes after the observe began is in that value or delivered as a change, never lost.
    private func add(
        _ registration: GuardRegistration, to object: AnyObject, runtimeObject: Unmanaged<KVOObject>?,
        keyPath: String, options: KeyValueObservingOptions, context: UnsafeMutableRawPointer?
    ) -> Bool {
        SchedulePoints.reach(.guardBeforeRegister, registration)
        if let runtimeObject {
            runtimeObject._withUnsafeGuaranteedRef { addToRuntime(registration, on: $0) }
            return true
        }
        guard
            let handle = backend.addObserver(
                registration, to: object, forKeyPath: keyPath, options: options.subtracting(.initial),
                context: context, dropsWithObject: !retainsObservedObjects)
        else {
            return abandonRefused(registration)
        }
        activate(registration, handle: handle, on: object)
        return true
    }

    /// ``add(_:to:runtimeObject:keyPath:options:context:)`` into GuardCore's runtime: the registration is the
    /// runtime's observance, made with the very info the runtime's check returned, and is inserted as it is.
    private func addToRuntime(_ registration: GuardRegistration, on object: KVOObject) {
        object.insertObservance(registration)
        if registration.lacksObjectTable {
            // A weakly held object observed for the first time: the insert made its table.
            withLock { registration.takeObjectTable(of: object) }
        }
        SchedulePoints.reach(.guardAfterRegister, registration)
        if !registration.state.transition(from: .pending, to: .active) {
            // Another thread unobserved while the add was running and already got `.removed` (the state is
            // `cancelled`); now that the runtime knows the registration, take it out.
            SchedulePoints.reach(.guardBeforeUnregister, registration)
            _ = object.removeObservance(registration)
            registration.state.set(.removed)
        }
    }

    /// Activates `registration`, which another backend added with `handle`, or removes it again if an unobserve
    /// cancelled it while the backend was adding it (or the backend reported the object gone meanwhile).
    private func activate(_ registration: GuardRegistration, handle: any BackendHandle, on object: AnyObject) {
        SchedulePoints.reach(.guardAfterRegister, registration)
        // Under the lock, like everything else that touches the handle (a removal, a backend reporting the object's
        // deinit, even one that does so while its add is still running). A registration that is its own handle keeps
        // none, so it never keeps itself alive.
        let activated = withLock { () -> Bool in
            guard registration.state.transition(from: .pending, to: .active) else { return false }
            if handle !== registration { registration.backendHandle = handle }
            return true
        }
        if !activated {
            SchedulePoints.reach(.guardBeforeUnregister, registration)
            backend.removeObservation(handle, from: object)
            registration.state.set(.removed)
        }
    }

    /// Takes out `registration`, which a backend refused after `canObserve` said yes (GuardCore's runtime backend
    /// never does: a dotted path whose chain broke meanwhile is registered and reads as nil). Returns whether another
    /// thread had already removed it: then this observe happened (and ended); otherwise it never did.
    private func abandonRefused(_ registration: GuardRegistration) -> Bool {
        SchedulePoints.reach(.guardAfterRegister, registration)
        let (wasCancelled, dropped, heldMeanwhile) = withLock {
            () -> (Bool, GuardRegistration?, ContiguousArray<HeldChanges.Entry>) in
            let wasCancelled = !registration.state.transition(from: .pending, to: .removed)
            registration.state.set(.removed)
            return (wasCancelled, dropFromTable(registration), takeHeldChanges(of: registration))
        }
        withExtendedLifetime((dropped, heldMeanwhile)) {}
        return wasCancelled
    }

    // MARK: The initial notification

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
}
