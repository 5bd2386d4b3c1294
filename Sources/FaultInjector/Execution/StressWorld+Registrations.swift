import GuardCore

/// Observe, unobserve (in every form) and the queries.
extension StressWorld {
    func observe(
        controllerSlot c: Int, objectSlot o: Int, keyPath: String, key: StressKey?, form: HarnessRegistration.Form,
        options: StressOptions, action: HandlerAction, index: Int, worker: WorkerContext
    ) {
        var record = begin(.observe, index: index, worker: worker)
        guard let handle = controllerSlots[c].controller, let object = objectSlots[o].object,
            key.map(observableKeys.contains) ?? true
        else {
            return skip(&record, worker: worker)
        }
        identify(&record, handle: handle, object: object)
        record.key = key
        record.options = options
        record.action = action
        if case .forwarding(let context) = form { record.context = context }
        if case .typed(let typed) = form { record.typedKey = typed }
        let registration = HarnessRegistration(
            id: record.id, controllerSlot: c, handle: handle, objectSlot: o, objectID: object.id, keyPath: keyPath,
            key: key, form: form, action: action, world: self)
        // The value `.initial` + `.new` reads: `link`'s, kept behind a lock, may race its changes (the oracle
        // judges it against them), and so does `gauge`'s or `link.gauge`'s, whose sets take no lock the world could
        // hold here; any other key's is a plain stored property (or made of several), read with the object locked,
        // as a correct program must, and so is everything a typed key path names (naming it may read the object's
        // properties).
        let readsValue = options.contains(.initial) && options.contains(.new) && key != nil
        let racesRead =
            readsValue && record.typedKey == nil
            && ((configuration.racesInitialValue && key == .link) || key?.isSetWithoutObjectLock == true)
        if racesRead { record.newValue = StressValue.racedRead }
        var locked: [Int] = []
        if (readsValue && !racesRead) || record.typedKey != nil {
            guard let taken = lockForReading(key ?? .k0, of: object, worker: worker) else {
                return skip(&record, worker: worker)
            }
            locked = taken
        }
        if readsValue, !racesRead, let key { record.newValue = object.value(of: key) }
        enter(&record, worker: worker)
        let call = call(record)
        let observingOptions = options.observingOptions
        let outcome = handle.perform { controller -> ObserveOutcome in
            switch form {
            case .handler:
                return controller.observe(object, keyPath: keyPath, options: observingOptions, sink: registration, call: call)
            case .forwarding(let context):
                return controller.observe(
                    object, keyPath: keyPath, options: observingOptions, context: context, sink: registration, call: call)
            case .typed(let typed):
                return controller.observe(object, typedKey: typed, options: observingOptions, sink: registration, call: call)
            }
        }
        record.outcome = outcome.map(OperationRecord.Outcome.init) ?? .skipped
        leave(&record, worker: worker)
        unlockObjectSlots(locked, worker: worker)
    }

    func unobserve(
        controllerSlot c: Int, objectSlot o: Int, key: StressKey?, form: HarnessRegistration.Form, index: Int,
        worker: WorkerContext
    ) {
        guard let handle = controllerSlots[c].controller, let object = objectSlots[o].object,
            key.map(observableKeys.contains) ?? true
        else {
            var record = begin(.unobserve, index: index, worker: worker)
            return skip(&record, worker: worker)
        }
        unobserve(handle: handle, object: object, key: key, form: form, index: index, worker: worker)
    }

    func unobserve(
        handle: ControllerHandle, object: StressObject, key: StressKey?, form: HarnessRegistration.Form, index: Int,
        worker: WorkerContext, inObjectDeinit: Bool = false
    ) {
        var record = begin(.unobserve, index: index, worker: worker)
        record.inObjectDeinit = inObjectDeinit
        identify(&record, handle: handle, object: object)
        record.key = key
        if case .forwarding(let context) = form { record.context = context }
        if case .typed(let typed) = form { record.typedKey = typed }
        // Naming a typed key path may read the object's properties.
        var locked: [Int] = []
        if record.typedKey != nil {
            guard let taken = lockForReading(.k0, of: object, worker: worker) else { return skip(&record, worker: worker) }
            locked = taken
        }
        enter(&record, worker: worker)
        let call = call(record)
        let outcome = handle.perform { controller -> UnobserveOutcome in
            switch form {
            case .handler: return controller.unobserve(object, keyPath: key!.name, call: call)
            case .forwarding(let context): return controller.unobserve(object, keyPath: key!.name, context: context, call: call)
            case .typed(let typed): return controller.unobserve(object, typedKey: typed, call: call)
            }
        }
        record.outcome = outcome.map(OperationRecord.Outcome.init) ?? .skipped
        leave(&record, worker: worker)
        unlockObjectSlots(locked, worker: worker)
    }

    func unobserveObject(controllerSlot c: Int, objectSlot o: Int, index: Int, worker: WorkerContext) {
        guard let handle = controllerSlots[c].controller, let object = objectSlots[o].object else {
            var record = begin(.unobserveObject, index: index, worker: worker)
            return skip(&record, worker: worker)
        }
        unobserveObject(handle: handle, object: object, index: index, worker: worker)
    }

    func unobserveObject(
        handle: ControllerHandle, object: StressObject, index: Int, worker: WorkerContext, inObjectDeinit: Bool = false
    ) {
        var record = begin(.unobserveObject, index: index, worker: worker)
        record.inObjectDeinit = inObjectDeinit
        identify(&record, handle: handle, object: object)
        enter(&record, worker: worker)
        let call = call(record)
        var outcome: UnobserveOutcome??
        worker.bulkReleases.append(
            BulkRelease.during(operation: record.id, controller: handle.id, object: object.id) {
                outcome = handle.perform { $0.unobserve(object, call: call) }
            })
        record.outcome = (outcome ?? nil).map(OperationRecord.Outcome.init) ?? .skipped
        leave(&record, worker: worker)
    }

    func unobserveAll(handle: ControllerHandle?, index: Int, worker: WorkerContext) {
        var record = begin(.unobserveAll, index: index, worker: worker)
        guard let handle else { return skip(&record, worker: worker) }
        record.controller = handle.id
        record.observer = handle.observerID
        enter(&record, worker: worker)
        let call = call(record)
        var removed: Int??
        worker.bulkReleases.append(
            BulkRelease.during(operation: record.id, controller: handle.id) {
                removed = handle.perform { $0.unobserveAll(call: call) }
            })
        if let removed {
            record.answer = removed ?? -1
        } else {
            record.outcome = .skipped
        }
        leave(&record, worker: worker)
    }

    // MARK: Queries

    func query(
        _ kind: OperationRecord.Kind, controllerSlot c: Int, objectSlot o: Int?, key: StressKey?, index: Int,
        worker: WorkerContext
    ) {
        var record = begin(kind, index: index, worker: worker)
        guard let handle = controllerSlots[c].controller, key.map(observableKeys.contains) ?? true else {
            return skip(&record, worker: worker)
        }
        let object = o.flatMap { objectSlots[$0].object }
        if o != nil, object == nil { return skip(&record, worker: worker) }
        record.controller = handle.id
        record.observer = handle.observerID
        record.object = object?.id ?? -1
        record.key = key
        enter(&record, worker: worker)
        let answer = handle.perform { controller -> Int? in
            switch kind {
            case .countRegistrations:
                return controller.registrationCount()
            case .isObserving:
                return controller.isObserving(object!, keyPath: key!.name).map { $0 ? 1 : 0 }
            default:
                return controller.observedKeyPaths(of: object!).map(Self.keyMask)
            }
        }
        switch answer {
        case .none: record.outcome = .skipped
        case .some(.none): record.outcome = .unknown
        case .some(.some(let value)):
            record.outcome = .answered
            record.answer = value
        }
        leave(&record, worker: worker)
    }

    /// Records on `record` the controller a call goes through (and its observer) and the object it names.
    func identify(_ record: inout OperationRecord, handle: ControllerHandle, object: StressObject) {
        record.controller = handle.id
        record.observer = handle.observerID
        record.object = object.id
        record.objectAddress = StressObject.address(of: object)
    }

    /// Key path names as ``StressKey`` bits; a name that is no stress key sets ``unknownKeyPathBit``, and a list that
    /// is not sorted or names a key path twice sets ``unsortedKeyPathsBit`` (`observedKeyPaths` promises a sorted
    /// list of the registrations' key paths, each once). Either bit makes the answer one no order of the calls can
    /// explain.
    static func keyMask(_ keyPaths: [String]) -> Int {
        var mask: UInt64 = 0
        for keyPath in keyPaths {
            mask |= StressKey(name: keyPath)?.bit ?? unknownKeyPathBit
        }
        // Sorted by UTF-8 bytes, as key paths are told apart (`<` on `String` calls two spellings of one word equal).
        if zip(keyPaths, keyPaths.dropFirst()).contains(where: { !$0.utf8.lexicographicallyPrecedes($1.utf8) }) {
            mask |= unsortedKeyPathsBit
        }
        return Int(bitPattern: UInt(mask))
    }

    /// Set in an `observedKeyPaths` answer that named a key path no operation observes.
    static let unknownKeyPathBit: UInt64 = 1 << 62
    /// Set in an `observedKeyPaths` answer that was not sorted, or named a key path twice.
    static let unsortedKeyPathsBit: UInt64 = 1 << 61
}
