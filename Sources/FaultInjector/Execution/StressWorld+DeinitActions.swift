/// What a stress object does in its own deinit: remove its own registrations as it goes
/// (``ScenarioConfiguration/unobservesInDeinit``), which the guard must answer as for a live object (its
/// registrations are its own until that deinit ends), only for systems that promise those answers
/// (``SystemUnderTest/answersRemovalsInObjectDeinit``); or ask to be observed (``ScenarioConfiguration/observesInDeinit``),
/// which the guard must refuse, only for systems that promise that
/// (``SystemUnderTest/refusesObservationInObjectDeinit``).
extension StressWorld {
    /// Which removal an object makes in its deinit, chosen by its id so a controlled run replays it.
    enum DeinitAction: Equatable {
        /// Unobserve `key` through controller slot `controller`.
        case unobserve(controller: Int, key: StressKey)
        /// Unobserve the whole object through controller slot `controller`.
        case unobserveObject(controller: Int)
        /// Observe `key` with `.initial` through controller slot `controller` (which must refuse it).
        case observe(controller: Int, key: StressKey)
    }

    /// The call object `id` makes in its deinit, if any: a quarter of the objects make none, or an observe where the
    /// system promises to refuse it; the others make a removal through a slot that holds its objects weakly (where
    /// the object can have live registrations when it goes) for two of three removals, and any slot for the third.
    /// Only removals the mix draws (`unobserve`, `unobserveObject`).
    func deinitAction(ofObject id: Int) -> DeinitAction? {
        deinitRemovals?.action(ofObject: id)
    }

    /// What deinit removals choose from, fixed for a run and so worked out once, when the world is made.
    struct DeinitRemovalChoices {
        /// The scenario's keys the system under test can observe, in the scenario's order (never empty).
        let keys: [StressKey]
        /// The controller slots that hold their objects weakly.
        let weakSlots: [Int]
        /// How many controller slots there are (at least one).
        let slotCount: Int
        /// Whether the mix draws `unobserve`.
        let removesKeys: Bool
        /// Whether the mix draws `unobserveObject`.
        let removesObjects: Bool
        /// Whether objects ask to be observed in their deinit (the scenario asks for it, the system refuses it).
        let observes: Bool

        /// The choices of a world of `configuration` run against `target`; `nil` when its objects make no calls in
        /// their deinits (the scenario does not ask for them, the system does not promise to answer them, or there
        /// is no controller slot or observable key to call through).
        init?(configuration: ScenarioConfiguration, target: any SystemUnderTest) {
            let observable = target.observableKeys
            keys = configuration.keys.filter(observable.contains)
            slotCount = configuration.controllers
            let removes = configuration.unobservesInDeinit && target.answersRemovalsInObjectDeinit
            observes = configuration.observesInDeinit && target.refusesObservationInObjectDeinit
            guard removes || observes, slotCount > 0, !keys.isEmpty else { return nil }
            weakSlots = (0..<slotCount).filter { configuration.holdsWeakly(controller: $0) }
            removesKeys = removes && configuration.mix[.unobserve] > 0
            removesObjects = removes && configuration.mix[.unobserveObject] > 0
        }

        /// See ``StressWorld/deinitAction(ofObject:)``.
        func action(ofObject id: Int) -> DeinitAction? {
            let pick = id / 4
            let weakSlot = weakSlots.isEmpty ? pick % slotCount : weakSlots[pick % weakSlots.count]
            let key = keys[(pick / slotCount) % keys.count]
            switch id % 4 {
            case 0 where removesKeys: return .unobserve(controller: weakSlot, key: key)
            case 1 where removesObjects: return .unobserveObject(controller: weakSlot)
            case 2 where removesKeys: return .unobserve(controller: pick % slotCount, key: key)
            case 3 where observes: return .observe(controller: pick % slotCount, key: key)
            default: return nil
            }
        }
    }

    /// Runs `object`'s deinit removal as a nested operation of the worker whose operation dropped the last reference
    /// to it. A deinit outside a worker's operation (the end of the run) removes nothing.
    func performDeinitAction(of object: StressObject) {
        guard let worker = WorkerContext.current, !worker.frames.isEmpty, worker.frames.count < Self.maximumNesting,
            let action = deinitAction(ofObject: object.id)
        else { return }
        switch action {
        case .unobserve(let c, let key):
            guard let handle = controllerSlots[c].controller else { return }
            unobserve(
                handle: handle, object: object, key: key, form: .handler, index: -1, worker: worker,
                inObjectDeinit: true)
        case .unobserveObject(let c):
            guard let handle = controllerSlots[c].controller else { return }
            unobserveObject(handle: handle, object: object, index: -1, worker: worker, inObjectDeinit: true)
        case .observe(let c, let key):
            guard let handle = controllerSlots[c].controller else { return }
            observeInDeinit(of: object, handle: handle, controllerSlot: c, key: key, worker: worker)
        }
    }

    /// Asks `handle`'s controller to observe `key` of `object` with `.initial`, from inside `object`'s deinit: a
    /// nested observe, recorded as made in the object's deinit, whose result the oracle requires to be `.invalid`.
    private func observeInDeinit(
        of object: StressObject, handle: ControllerHandle, controllerSlot c: Int, key: StressKey, worker: WorkerContext
    ) {
        var record = begin(.observe, index: -1, worker: worker)
        record.inObjectDeinit = true
        identify(&record, handle: handle, object: object)
        record.key = key
        record.options = .initial
        record.action = HandlerAction.none
        let registration = HarnessRegistration(
            id: record.id, controllerSlot: c, handle: handle, objectSlot: -1, objectID: object.id, keyPath: key.name, key: key,
            form: .handler, action: .none, world: self)
        enter(&record, worker: worker)
        let call = call(record)
        let outcome = handle.perform { controller -> ObserveOutcome in
            controller.observe(object, keyPath: key.name, options: StressOptions.initial.observingOptions, sink: registration, call: call)
        }
        record.outcome = outcome.map(OperationRecord.Outcome.init) ?? .skipped
        leave(&record, worker: worker)
    }
}
