import GuardCore

/// Releasing observers, controllers and objects, and the actions handlers run on their first notification.
extension StressWorld {
    func releaseObserver(controllerSlot c: Int, index: Int, worker: WorkerContext) {
        var record = begin(.releaseObserver, index: index, worker: worker)
        let slot = controllerSlots[c]
        let replacement = makeObserver(holdsWeakly: slot.holdsWeakly)
        // Kept to the end of the operation (as an explorer counts it): the last reference may be this one.
        SchedulePoints.access(replacement, .lifetime, .hold)
        record.replacement = replacement.id
        enter(&record, worker: worker)
        var released = slot.replace(with: replacement)
        record.observer = released?.id ?? -1
        record.controller = released?.controllerID ?? -1
        let identity = released.map(ObjectIdentifier.init)
        released = nil  // the observer (and its controller) deinitialize here unless in use elsewhere
        if let identity { SchedulePoints.access(identity, .lifetime, .drop) }
        leave(&record, worker: worker)
    }

    /// Replaces the controller of slot `c`; with `expected`, only if that handle is still the slot's controller.
    func releaseController(
        controllerSlot c: Int, expected: ControllerHandle?, index: Int, worker: WorkerContext
    ) {
        var record = begin(.releaseController, index: index, worker: worker)
        guard let observer = controllerSlots[c].observer else { return skip(&record, worker: worker) }
        if let expected, observer.controller !== expected { return skip(&record, worker: worker) }
        let replacement = makeHandle(for: observer, holdsWeakly: controllerSlots[c].holdsWeakly)
        SchedulePoints.access(replacement, .lifetime, .hold)
        record.observer = observer.id
        record.replacement = replacement.id
        enter(&record, worker: worker)
        var released = observer.replaceController(with: replacement)
        record.controller = released?.id ?? -1
        let identity = released.map(ObjectIdentifier.init)
        released = nil  // the controller deinitializes here unless in use elsewhere
        if let identity { SchedulePoints.access(identity, .lifetime, .drop) }
        leave(&record, worker: worker)
    }

    func releaseObject(objectSlot o: Int, index: Int, worker: WorkerContext) {
        var record = begin(.releaseObject, index: index, worker: worker)
        let replacement = makeObject(home: o)
        SchedulePoints.access(replacement, .lifetime, .hold)
        record.replacement = replacement.id
        enter(&record, worker: worker)
        var released = objectSlots[o].replace(with: replacement)
        record.object = released?.id ?? -1
        let identity = released.map(ObjectIdentifier.init)
        released = nil
        if let identity { SchedulePoints.access(identity, .lifetime, .drop) }
        leave(&record, worker: worker)
    }

    // MARK: Handler actions

    /// Runs `registration`'s action inside its handler, as a nested operation of the notifying thread's worker.
    func performHandlerAction(of registration: HarnessRegistration, object: StressObject) {
        guard let worker = WorkerContext.current, worker.frames.count < Self.maximumNesting else { return }
        switch registration.action {
        case .none:
            return
        case .unobserveSelf:
            guard let handle = registration.handle else { return }
            unobserve(
                handle: handle, object: object, key: registration.key, form: registration.form, index: -1,
                worker: worker)
        case .unobserveAll:
            unobserveAll(handle: registration.handle, index: -1, worker: worker)
        case .releaseController:
            guard let handle = registration.handle else { return }
            releaseController(controllerSlot: registration.controllerSlot, expected: handle, index: -1, worker: worker)
        case .mutate(let o, let key):
            mutate(objectSlot: o, key: key, index: -1, worker: worker)
        case .observe(let o, let key):
            observe(
                controllerSlot: registration.controllerSlot, objectSlot: o, keyPath: key.name, key: key, form: .handler,
                options: [.new, .old, .prior], action: .none, index: -1, worker: worker)
        case .adopt(let o):
            adopt(objectSlot: o, into: registration, worker: worker)
        }
    }

    /// Takes the object out of slot `o` (the slot gets a new one) and leaves it in `registration`, whose handler
    /// now holds the last reference the harness has.
    private func adopt(objectSlot o: Int, into registration: HarnessRegistration, worker: WorkerContext) {
        var record = begin(.adoptObject, index: -1, worker: worker)
        let replacement = makeObject(home: o)
        record.replacement = replacement.id
        enter(&record, worker: worker)
        if let adopted = objectSlots[o].replace(with: replacement) {
            record.object = adopted.id
            registration.adopt(adopted)
        }
        leave(&record, worker: worker)
    }
}
