import GuardCore

/// Performing operations: resolve slots to the instances in them, call the system under test, and record what
/// happened with call and return times.
extension StressWorld {
    /// Nested handler actions stop at this depth, so handlers that mutate cannot recurse without end.
    static let maximumNesting = 4

    /// Performs operation number `index` of `worker`.
    func perform(_ operation: Operation, index: Int, worker: WorkerContext) {
        switch operation {
        case .observe(let c, let o, let key, let options, let action):
            observe(controllerSlot: c, objectSlot: o, key: key, options: options, action: action, index: index, worker: worker)
        case .unobserve(let c, let o, let key):
            unobserve(controllerSlot: c, objectSlot: o, key: key, index: index, worker: worker)
        case .doubleUnobserve(let c, let o, let key):
            unobserve(controllerSlot: c, objectSlot: o, key: key, index: index, worker: worker)
            worker.faults.maybePause()
            unobserve(controllerSlot: c, objectSlot: o, key: key, index: index, worker: worker)
        case .unobserveObject(let c, let o):
            unobserveObject(controllerSlot: c, objectSlot: o, index: index, worker: worker)
        case .unobserveAll(let c):
            unobserveAll(handle: controllerSlots[c].observer?.controller, index: index, worker: worker)
        case .mutate(let o, let key):
            mutate(objectSlot: o, key: key, index: index, worker: worker)
        case .releaseObserver(let c):
            releaseObserver(controllerSlot: c, index: index, worker: worker)
        case .releaseController(let c):
            releaseController(controllerSlot: c, expected: nil, index: index, worker: worker)
        case .releaseObject(let o):
            releaseObject(objectSlot: o, index: index, worker: worker)
        }
    }

    // MARK: Operations

    private func observe(
        controllerSlot c: Int, objectSlot o: Int, key: StressKey, options: StressOptions, action: HandlerAction,
        index: Int, worker: WorkerContext
    ) {
        var record = begin(.observe, index: index, worker: worker)
        guard let handle = controllerSlots[c].observer?.controller, let object = objectSlots[o].object else {
            return skip(&record, worker: worker)
        }
        record.controller = handle.id
        record.observer = handle.observerID
        record.object = object.id
        record.key = key
        record.options = options
        record.action = action
        let registration = HarnessRegistration(
            id: record.id, controllerSlot: c, handle: handle, objectSlot: o, key: key, action: action, world: self)
        // Reading the value for `.initial` + `.new` must not race with a mutation of the same object.
        let readsValue = options.contains(.initial) && options.contains(.new)
        if readsValue, !lockObjectSlot(o, worker: worker) { return skip(&record, worker: worker) }
        if readsValue { record.newValue = object.value(of: key) }
        enter(&record, worker: worker)
        let outcome = handle.perform { controller in
            controller.observe(object, keyPath: key.name, options: options.observingOptions, sink: registration)
        }
        record.outcome = outcome.map(OperationRecord.Outcome.init) ?? .skipped
        leave(&record, worker: worker)
        if readsValue { unlockObjectSlot(o, worker: worker) }
    }

    private func unobserve(controllerSlot c: Int, objectSlot o: Int, key: StressKey, index: Int, worker: WorkerContext) {
        guard let handle = controllerSlots[c].observer?.controller, let object = objectSlots[o].object else {
            var record = begin(.unobserve, index: index, worker: worker)
            return skip(&record, worker: worker)
        }
        unobserve(handle: handle, object: object, key: key, index: index, worker: worker)
    }

    private func unobserve(
        handle: ControllerHandle, object: StressObject, key: StressKey, index: Int, worker: WorkerContext
    ) {
        var record = begin(.unobserve, index: index, worker: worker)
        record.controller = handle.id
        record.observer = handle.observerID
        record.object = object.id
        record.key = key
        enter(&record, worker: worker)
        let outcome = handle.perform { $0.unobserve(object, keyPath: key.name) }
        record.outcome = outcome.map(OperationRecord.Outcome.init) ?? .skipped
        leave(&record, worker: worker)
    }

    private func unobserveObject(controllerSlot c: Int, objectSlot o: Int, index: Int, worker: WorkerContext) {
        var record = begin(.unobserveObject, index: index, worker: worker)
        guard let handle = controllerSlots[c].observer?.controller, let object = objectSlots[o].object else {
            return skip(&record, worker: worker)
        }
        record.controller = handle.id
        record.observer = handle.observerID
        record.object = object.id
        enter(&record, worker: worker)
        let outcome = handle.perform { $0.unobserve(object) }
        record.outcome = outcome.map(OperationRecord.Outcome.init) ?? .skipped
        leave(&record, worker: worker)
    }

    private func unobserveAll(handle: ControllerHandle?, index: Int, worker: WorkerContext) {
        var record = begin(.unobserveAll, index: index, worker: worker)
        guard let handle else { return skip(&record, worker: worker) }
        record.controller = handle.id
        record.observer = handle.observerID
        enter(&record, worker: worker)
        handle.perform { $0.unobserveAll() }
        leave(&record, worker: worker)
    }

    private func mutate(objectSlot o: Int, key: StressKey, index: Int, worker: WorkerContext) {
        var record = begin(.mutate, index: index, worker: worker)
        // A handler may change the object it is hearing about only through `k2`: a nested change of `k0` or `k1`
        // during a prior notification would move `sum` between the outer change's old and new reads.
        if worker.heldObjectSlots.last == o, key != .k2 { return skip(&record, worker: worker) }
        guard lockObjectSlot(o, worker: worker) else { return skip(&record, worker: worker) }
        defer { unlockObjectSlot(o, worker: worker) }
        guard let object = objectSlots[o].object else { return skip(&record, worker: worker) }
        record.object = object.id
        record.key = key
        record.oldValue = object.value(of: key)
        record.oldSum = object.sum
        record.newValue = makeValue()
        // The sum right after the store; handlers may change the object again before `set` returns.
        record.newSum = key == .k2 ? record.oldSum : record.oldSum &- record.oldValue &+ record.newValue
        enter(&record, worker: worker)
        object.set(key, to: record.newValue)
        leave(&record, worker: worker)
    }

    private func releaseObserver(controllerSlot c: Int, index: Int, worker: WorkerContext) {
        var record = begin(.releaseObserver, index: index, worker: worker)
        let slot = controllerSlots[c]
        let replacement = makeObserver(holdsWeakly: slot.holdsWeakly)
        record.replacement = replacement.id
        enter(&record, worker: worker)
        var released = slot.replace(with: replacement)
        record.observer = released?.id ?? -1
        record.controller = released?.controller?.id ?? -1
        released = nil  // the observer (and its controller) deinitialize here unless in use elsewhere
        leave(&record, worker: worker)
    }

    /// Replaces the controller of slot `c`; with `expected`, only if that handle is still the slot's controller.
    private func releaseController(
        controllerSlot c: Int, expected: ControllerHandle?, index: Int, worker: WorkerContext
    ) {
        var record = begin(.releaseController, index: index, worker: worker)
        guard let observer = controllerSlots[c].observer else { return skip(&record, worker: worker) }
        if let expected, observer.controller !== expected { return skip(&record, worker: worker) }
        let replacement = makeHandle(for: observer, holdsWeakly: controllerSlots[c].holdsWeakly)
        record.observer = observer.id
        record.replacement = replacement.id
        enter(&record, worker: worker)
        var released = observer.replaceController(with: replacement)
        record.controller = released?.id ?? -1
        released = nil  // the controller deinitializes here unless in use elsewhere
        leave(&record, worker: worker)
    }

    private func releaseObject(objectSlot o: Int, index: Int, worker: WorkerContext) {
        var record = begin(.releaseObject, index: index, worker: worker)
        let replacement = makeObject()
        record.replacement = replacement.id
        enter(&record, worker: worker)
        var released = objectSlots[o].replace(with: replacement)
        record.object = released?.id ?? -1
        released = nil
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
            unobserve(handle: handle, object: object, key: registration.key, index: -1, worker: worker)
        case .unobserveAll:
            unobserveAll(handle: registration.handle, index: -1, worker: worker)
        case .releaseController:
            guard let handle = registration.handle else { return }
            releaseController(controllerSlot: registration.controllerSlot, expected: handle, index: -1, worker: worker)
        case .mutate(let o, let key):
            mutate(objectSlot: o, key: key, index: -1, worker: worker)
        case .observe(let o, let key):
            observe(
                controllerSlot: registration.controllerSlot, objectSlot: o, key: key, options: [.new, .old, .prior],
                action: .none, index: -1, worker: worker)
        }
    }

    // MARK: Recording helpers

    private func begin(_ kind: OperationRecord.Kind, index: Int, worker: WorkerContext) -> OperationRecord {
        OperationRecord(id: worker.makeOperationID(), parent: worker.frames.last ?? -1, worker: worker.index, index: index, kind: kind)
    }

    /// Stamps the call time and makes the operation the thread's innermost frame (the cause of notifications).
    private func enter(_ record: inout OperationRecord, worker: WorkerContext) {
        monitor?.record(
            .began(operation: record.id, index: record.index, kind: record.kind, parent: record.parent),
            worker: worker.index)
        record.call = clock.now
        worker.frames.append(record.id)
    }

    /// Stamps the return time, leaves the frame and appends the record.
    private func leave(_ record: inout OperationRecord, worker: WorkerContext) {
        worker.frames.removeLast()
        record.ret = clock.now
        worker.operations.append(record)
        monitor?.record(.ended(operation: record.id, outcome: record.outcome), worker: worker.index)
    }

    private func skip(_ record: inout OperationRecord, worker: WorkerContext) {
        record.outcome = .skipped
        record.call = clock.now
        record.ret = record.call
        worker.operations.append(record)
        monitor?.record(.skipped(operation: record.id, index: record.index, kind: record.kind), worker: worker.index)
    }

    /// Takes slot `o`'s mutation lock unless that would break the lock order (slots in increasing index, the
    /// same slot again allowed); returns whether it did.
    private func lockObjectSlot(_ o: Int, worker: WorkerContext) -> Bool {
        if let highest = worker.heldObjectSlots.max(), o < highest { return false }
        objectSlots[o].mutationLock.lock()
        worker.heldObjectSlots.append(o)
        return true
    }

    private func unlockObjectSlot(_ o: Int, worker: WorkerContext) {
        worker.heldObjectSlots.removeLast()
        objectSlots[o].mutationLock.unlock()
    }
}

extension OperationRecord.Outcome {
    init(_ outcome: ObserveOutcome) {
        switch outcome {
        case .registered: self = .registered
        case .duplicate: self = .duplicate
        case .invalid: self = .invalid
        case .unknown: self = .unknown
        }
    }

    init(_ outcome: UnobserveOutcome) {
        switch outcome {
        case .removed: self = .removed
        case .alreadyRemoved: self = .alreadyRemoved
        case .notRegistered: self = .notRegistered
        case .invalid: self = .invalid
        case .unknown: self = .unknown
        }
    }
}
