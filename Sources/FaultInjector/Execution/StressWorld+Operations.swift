import GuardCore

/// Performing operations: resolve slots to the instances in them, call the system under test, and record what
/// happened with call and return times. The operations themselves are in the files next to this one (registrations,
/// changes, queries, releases, handler actions); this one dispatches and holds the recording and locking helpers.
extension StressWorld {
    /// Nested handler actions stop at this depth, so handlers that mutate cannot recurse without end.
    static let maximumNesting = 4

    /// Performs operation number `index` of `worker`.
    func perform(_ operation: Operation, index: Int, worker: WorkerContext) {
        switch operation {
        case .observe(let c, let o, let key, let options, let action):
            observe(
                controllerSlot: c, objectSlot: o, keyPath: key.name, key: key, form: .handler, options: options,
                action: action, index: index, worker: worker)
        case .observeForwarding(let c, let o, let key, let options, let context, let action):
            observe(
                controllerSlot: c, objectSlot: o, keyPath: key.name, key: key, form: .forwarding(context: context),
                options: options, action: action, index: index, worker: worker)
        case .observeTyped(let c, let o, let key, let options, let action):
            observe(
                controllerSlot: c, objectSlot: o, keyPath: key.named?.name ?? key.text, key: key.named,
                form: .typed(key), options: options, action: action, index: index, worker: worker)
        case .unobserve(let c, let o, let key):
            unobserve(controllerSlot: c, objectSlot: o, key: key, form: .handler, index: index, worker: worker)
        case .unobserveContext(let c, let o, let key, let context):
            unobserve(
                controllerSlot: c, objectSlot: o, key: key, form: .forwarding(context: context), index: index,
                worker: worker)
        case .unobserveTyped(let c, let o, let key):
            unobserve(controllerSlot: c, objectSlot: o, key: key.named, form: .typed(key), index: index, worker: worker)
        case .doubleUnobserve(let c, let o, let key):
            unobserve(controllerSlot: c, objectSlot: o, key: key, form: .handler, index: index, worker: worker)
            worker.faults.maybePause()
            unobserve(controllerSlot: c, objectSlot: o, key: key, form: .handler, index: index, worker: worker)
        case .unobserveObject(let c, let o):
            unobserveObject(controllerSlot: c, objectSlot: o, index: index, worker: worker)
        case .unobserveAll(let c):
            unobserveAll(handle: controllerSlots[c].controller, index: index, worker: worker)
        case .mutate(let o, let key):
            mutate(objectSlot: o, key: key, index: index, worker: worker)
        case .link(let o, let target):
            link(objectSlot: o, to: target, index: index, worker: worker)
        case .announce(let o, let nested):
            announce(objectSlot: o, nested: nested, index: index, worker: worker)
        case .changeItems(let o, let change):
            changeItems(objectSlot: o, change: change, index: index, worker: worker)
        case .countRegistrations(let c):
            query(.countRegistrations, controllerSlot: c, objectSlot: nil, key: nil, index: index, worker: worker)
        case .isObserving(let c, let o, let key):
            query(.isObserving, controllerSlot: c, objectSlot: o, key: key, index: index, worker: worker)
        case .observedKeyPaths(let c, let o):
            query(.observedKeyPaths, controllerSlot: c, objectSlot: o, key: nil, index: index, worker: worker)
        case .releaseObserver(let c):
            releaseObserver(controllerSlot: c, index: index, worker: worker)
        case .releaseController(let c):
            releaseController(controllerSlot: c, expected: nil, index: index, worker: worker)
        case .releaseObject(let o):
            releaseObject(objectSlot: o, index: index, worker: worker)
        }
    }

    // MARK: Recording helpers

    func begin(_ kind: OperationRecord.Kind, index: Int, worker: WorkerContext) -> OperationRecord {
        OperationRecord(id: worker.makeOperationID(), parent: worker.frames.last ?? -1, worker: worker.index, index: index, kind: kind)
    }

    /// Stamps the call time and makes the operation the thread's innermost frame (the cause of notifications).
    func enter(_ record: inout OperationRecord, worker: WorkerContext) {
        traceRecorder?.record(
            .began(operation: record.id, index: record.index, kind: record.kind, parent: record.parent),
            worker: worker.index)
        record.call = clock.now
        worker.frames.append(record.id)
        if let held = ControlledHook.locksHeldByCallingWorker() { worker.locksHeldAtCall.append(held) }
    }

    /// Stamps the return time, leaves the frame and appends the record.
    func leave(_ record: inout OperationRecord, worker: WorkerContext) {
        worker.frames.removeLast()
        if !worker.locksHeldAtCall.isEmpty { worker.locksHeldAtCall.removeLast() }
        record.ret = clock.now
        worker.operations.append(record)
        traceRecorder?.record(.ended(operation: record.id, outcome: record.outcome), worker: worker.index)
    }

    func skip(_ record: inout OperationRecord, worker: WorkerContext) {
        record.outcome = .skipped
        record.call = clock.now
        record.ret = record.call
        worker.operations.append(record)
        traceRecorder?.record(.skipped(operation: record.id, index: record.index, kind: record.kind), worker: worker.index)
    }

    /// The call an operation makes, for the system under test to pass on as its call site.
    func call(_ record: OperationRecord) -> StressCall {
        StressCall(operation: record.id)
    }

    // MARK: Locking

    /// Takes slot `o`'s mutation lock unless that would break the lock order (slots in increasing index, the
    /// same slot again allowed); returns whether it did.
    func lockObjectSlot(_ o: Int, worker: WorkerContext) -> Bool {
        if let highest = worker.heldObjectSlots.max(), o < highest { return false }
        objectSlots[o].mutationLock.lock()
        worker.heldObjectSlots.append(o)
        return true
    }

    func unlockObjectSlot(_ o: Int, worker: WorkerContext) {
        worker.heldObjectSlots.removeLast()
        objectSlots[o].mutationLock.unlock()
    }

    /// Takes the mutation locks of `slots` in increasing order (each once); on refusal, releases what it took and
    /// returns `nil`. Returns the slots taken, for ``unlockObjectSlots(_:worker:)``.
    func lockObjectSlots(_ slots: [Int], worker: WorkerContext) -> [Int]? {
        var taken: [Int] = []
        for slot in Set(slots).sorted() {
            guard lockObjectSlot(slot, worker: worker) else {
                unlockObjectSlots(taken, worker: worker)
                return nil
            }
            taken.append(slot)
        }
        return taken
    }

    func unlockObjectSlots(_ slots: [Int], worker: WorkerContext) {
        for slot in slots.reversed() { unlockObjectSlot(slot, worker: worker) }
    }

    /// Takes the locks that reading `key` of `object` needs: its own slot's, and for a key read through the middle
    /// object, that object's slot's too (always a later slot). `nil` if the lock order forbids it.
    func lockForReading(_ key: StressKey, of object: StressObject, worker: WorkerContext) -> [Int]? {
        guard object.home >= 0, let taken = lockObjectSlots([object.home], worker: worker) else { return nil }
        guard key.readsThroughLink, let middle = object.link as? StressObject, middle.home >= 0 else { return taken }
        guard let more = lockObjectSlots([middle.home], worker: worker) else {
            unlockObjectSlots(taken, worker: worker)
            return nil
        }
        return taken + more
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
