import GuardCore

/// The instances one run works on: object and controller slots, the system under test, unique ids and values,
/// and the facts the oracle needs about instance lifetimes.
final class StressWorld: @unchecked Sendable {
    let configuration: ScenarioConfiguration
    let target: any SystemUnderTest
    private(set) var objectSlots: [ObjectSlot] = []
    private(set) var controllerSlots: [ControllerSlot] = []
    private let nextID = AtomicCell()
    private let nextValue = AtomicCell()
    private let facts = Protected(Facts())
    private let tracked = Protected([TrackedInstance]())
    private let strayDeliveries = Protected([DeliveryRecord]())

    private struct Facts {
        var observerDeinitTimes: [Int: UInt64] = [:]
        var controllerEndTimes: [Int: (started: UInt64, finished: UInt64)] = [:]
        var controllerObservers: [Int: Int] = [:]
        var weakControllers: Set<Int> = []
    }

    /// A weak reference to something the world created, to find leaks at the end.
    struct TrackedInstance {
        let kind: String
        let reference: WeakObject
    }

    init(configuration: ScenarioConfiguration, target: any SystemUnderTest) {
        self.configuration = configuration
        self.target = target
        objectSlots = (0..<configuration.objects).map { ObjectSlot(index: $0, object: makeObject()) }
        controllerSlots = (0..<configuration.controllers).map { index in
            let weakly = configuration.holdsWeakly(controller: index)
            return ControllerSlot(index: index, holdsWeakly: weakly, observer: makeObserver(holdsWeakly: weakly))
        }
    }

    // MARK: Instances

    func makeID() -> Int {
        nextID.word.add(1, ordering: .relaxed)
    }

    /// A value no other mutation in the process writes.
    func makeValue() -> Int {
        nextValue.word.add(1, ordering: .relaxed)
    }

    func makeObject() -> StressObject {
        let object = StressObject(id: makeID())
        track("object", object)
        return object
    }

    /// A new observer with its own new controller.
    func makeObserver(holdsWeakly: Bool) -> StressObserver {
        let observer = StressObserver(id: makeID()) { [weak self] id in
            let now = MonotonicClock.now
            self?.facts.withValue { $0.observerDeinitTimes[id] = now }
        }
        track("observer", observer)
        observer.replaceController(with: makeHandle(for: observer, holdsWeakly: holdsWeakly))
        return observer
    }

    /// A new controller of the system under test for `observer`.
    func makeHandle(for observer: StressObserver, holdsWeakly: Bool) -> ControllerHandle {
        let controller = target.makeController(for: observer, retainsObjects: !holdsWeakly)
        let handle = ControllerHandle(
            id: makeID(), observerID: observer.id, holdsWeakly: holdsWeakly, controller: controller
        ) { [weak self] id, started, finished in
            self?.facts.withValue { $0.controllerEndTimes[id] = (started, finished) }
        }
        facts.withValue { facts in
            facts.controllerObservers[handle.id] = observer.id
            if holdsWeakly { facts.weakControllers.insert(handle.id) }
        }
        track("controller handle", handle)
        track("controller", controller)
        return handle
    }

    private func track(_ kind: String, _ instance: AnyObject) {
        tracked.withValue { $0.append(TrackedInstance(kind: kind, reference: WeakObject(instance))) }
    }

    // MARK: End of run

    /// Drops every slot's instances, as the end of a program would.
    func releaseEverything() {
        for slot in controllerSlots { _ = slot.replace(with: nil) }
        for slot in objectSlots { _ = slot.replace(with: nil) }
    }

    /// Instances still alive, by kind (call after ``releaseEverything()``).
    func survivors() -> [String: Int] {
        tracked.withValue { tracked in
            var counts: [String: Int] = [:]
            for instance in tracked where instance.reference.object != nil {
                counts[instance.kind, default: 0] += 1
            }
            return counts
        }
    }

    /// Notifications received on threads that are not workers.
    var deliveriesOffWorkers: [DeliveryRecord] {
        strayDeliveries.current
    }

    /// Lifetime facts merged into `history`.
    func addFacts(to history: inout History) {
        facts.withValue { facts in
            history.observerDeinitTimes = facts.observerDeinitTimes
            history.controllerEndStartTimes = facts.controllerEndTimes.mapValues(\.started)
            history.controllerEndTimes = facts.controllerEndTimes.mapValues(\.finished)
            history.controllerObservers = facts.controllerObservers
            history.weakControllers = facts.weakControllers
        }
    }

    // MARK: Recording notifications

    func recordDelivery(for registration: HarnessRegistration, observer: StressObserver?, change: KeyValueChange) {
        let now = MonotonicClock.now
        let worker = WorkerContext.current
        let old = change.oldValue(as: Int.self)
        let new = change.newValue(as: Int.self)
        let record = DeliveryRecord(
            registration: registration.id, cause: worker?.frames.last ?? -1, worker: worker?.index ?? -1,
            sequence: worker?.makeSequence() ?? 0, time: now, kind: UInt8(change.kind.rawValue),
            isPrior: change.isPrior, hasOld: change.oldValue != nil, hasNew: change.newValue != nil,
            oldValue: old ?? .min, newValue: new ?? .min, observer: observer?.id ?? -1,
            keyPathMatches: change.keyPath == registration.key.name)
        if let worker {
            worker.deliveries.append(record)
        } else {
            strayDeliveries.withValue { $0.append(record) }
        }
    }
}
