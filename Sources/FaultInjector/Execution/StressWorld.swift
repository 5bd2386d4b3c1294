import Foundation
import GuardCore

/// The instances one run works on: object and controller slots, the system under test, unique ids and values,
/// and the facts the oracle needs about instance lifetimes. Both runners perform their operations through it.
final class StressWorld: @unchecked Sendable {
    let configuration: ScenarioConfiguration
    let target: any SystemUnderTest
    /// Stamps every record (monotonic for chaos runs, logical ticks for controlled runs).
    let clock: RunClock
    /// Hears about every operation and notification as it happens (the controlled runner's trace), if set.
    let traceRecorder: (any TraceRecorder)?
    private(set) var objectSlots: [ObjectSlot] = []
    private(set) var controllerSlots: [ControllerSlot] = []
    private let nextID = AtomicCell()
    private let nextValue = AtomicCell()
    private let facts = UnorderedRecords(Facts())
    private let tracked = UnorderedRecords([TrackedInstance]())
    private let strayDeliveries = UnorderedRecords([DeliveryRecord]())
    private let unrouted = AtomicCell()
    private let offWorkerBulkReleases = UnorderedRecords([BulkReleaseRecord]())
    /// Where the controllers' diagnostics are recorded.
    let diagnostics: DiagnosticRecorder
    /// The keys the system under test can observe (operations on others are skipped).
    let observableKeys: Set<StressKey>
    /// What objects' deinit removals choose from (``deinitAction(ofObject:)``); `nil` when they make none.
    let deinitRemovals: DeinitRemovalChoices?
    /// The identities of the world's own slot, mutation and gauge locks, which are never the system's.
    private(set) var worldLocks: Set<ObjectIdentifier> = []
    /// Whether ids and values made on a worker's thread come from that worker's own counters (an explored run: the
    /// order in which workers draw them then depends on nothing another worker does), rather than from counters
    /// shared by the run (every other run, whose histories seed files record).
    let countersPerWorker: Bool

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

    init(
        configuration: ScenarioConfiguration, target: any SystemUnderTest, clock: RunClock = .monotonic(),
        traceRecorder: (any TraceRecorder)? = nil, countersPerWorker: Bool = false
    ) {
        self.countersPerWorker = countersPerWorker
        self.configuration = configuration
        self.target = target
        self.clock = clock
        self.traceRecorder = traceRecorder
        self.diagnostics = DiagnosticRecorder(clock: clock)
        self.observableKeys = target.observableKeys
        deinitRemovals = DeinitRemovalChoices(configuration: configuration, target: target)
        let locksGaugeApart = configuration.mix[.setGauge] > 0
        objectSlots = (0..<configuration.objects).map {
            ObjectSlot(index: $0, object: makeObject(home: $0), locksGaugeApart: locksGaugeApart)
        }
        controllerSlots = (0..<configuration.controllers).map { index in
            let weakly = configuration.holdsWeakly(controller: index)
            return ControllerSlot(index: index, holdsWeakly: weakly, observer: makeObserver(holdsWeakly: weakly))
        }
        worldLocks = Set(lockNames.keys)
        HeldChangeAttribution.installOnce()
        diagnostics.startsUserCode = { [weak self] in self?.noteUserCode("a diagnostic sink") }
    }

    // MARK: Instances

    func makeID() -> Int {
        if countersPerWorker, let worker = WorkerContext.current { return worker.makeWorldNumber(kind: 0) }
        return nextID.word.add(1, ordering: .relaxed)
    }

    /// A value no other mutation in the process writes.
    func makeValue() -> Int {
        if countersPerWorker, let worker = WorkerContext.current { return worker.makeWorldNumber(kind: 1) }
        return nextValue.word.add(1, ordering: .relaxed)
    }

    /// A new object for object slot `home`.
    func makeObject(home: Int) -> StressObject {
        let object = StressObject(id: makeID(), home: home) { [weak self] object in
            WorkerContext.current?.noteObjectDeinit(object.id)
            self?.performDeinitAction(of: object)
        }
        track("object", object)
        return object
    }

    /// A new object of another class, without `k0`, to link.
    func makeStranger() -> StressStranger {
        let stranger = StressStranger(id: makeID())
        track("stranger", stranger)
        return stranger
    }

    /// A new observer with its own new controller.
    func makeObserver(holdsWeakly: Bool) -> StressObserver {
        let clock = self.clock
        let unrouted = self.unrouted
        let observer = StressObserver(
            id: makeID(),
            onDeinit: { [weak self] id in
                self?.noteUserCode("the deinit of observer #\(id)")
                let now = clock.now
                self?.facts.update { $0.observerDeinitTimes[id] = now }
            },
            onUnrouted: { unrouted.word.add(1, ordering: .relaxed) })
        track("observer", observer)
        observer.replaceController(with: makeHandle(for: observer, holdsWeakly: holdsWeakly))
        return observer
    }

    /// A new controller of the system under test for `observer`.
    func makeHandle(for observer: StressObserver, holdsWeakly: Bool) -> ControllerHandle {
        let controller = target.makeController(for: observer, retainsObjects: !holdsWeakly, diagnostics: diagnostics)
        let handle = ControllerHandle(
            id: makeID(), observerID: observer.id, holdsWeakly: holdsWeakly, controller: controller,
            now: { [clock] in clock.now },
            onReleases: { [weak self] releases in self?.keep(releases) }
        ) { [weak self] id, started, finished in
            self?.facts.update { $0.controllerEndTimes[id] = (started, finished) }
        }
        facts.update { facts in
            facts.controllerObservers[handle.id] = observer.id
            if holdsWeakly { facts.weakControllers.insert(handle.id) }
        }
        track("controller handle", handle)
        track("controller", controller)
        return handle
    }

    /// Keeps a bulk removal's list of released handlers: a worker's with the worker (no lock, so a controlled run
    /// takes no extra step), any other thread's (the teardown's) with the world.
    private func keep(_ releases: BulkReleaseRecord) {
        guard !releases.released.isEmpty else { return }
        if let worker = WorkerContext.current {
            worker.bulkReleases.append(releases)
        } else {
            offWorkerBulkReleases.update { $0.append(releases) }
        }
    }

    /// Bulk removals made off the workers' threads (the teardown's releases of controllers), with their handlers.
    var bulkReleasesOffWorkers: [BulkReleaseRecord] {
        offWorkerBulkReleases.current
    }

    private func track(_ kind: String, _ instance: AnyObject) {
        tracked.update { $0.append(TrackedInstance(kind: kind, reference: WeakObject(instance))) }
    }

    /// Names of the world's own locks (the slots' and the object slots' mutation locks), for deadlock reports.
    var lockNames: [ObjectIdentifier: String] {
        var names: [ObjectIdentifier: String] = [:]
        for slot in objectSlots {
            names[slot.mutationLock.identity] = "object slot \(slot.index) mutation lock"
            if let gaugeLock = slot.gaugeLock { names[gaugeLock.identity] = "object slot \(slot.index) gauge lock" }
            names[slot.slot.lockIdentity] = "object slot \(slot.index)"
        }
        for slot in controllerSlots { names[slot.slot.lockIdentity] = "controller slot \(slot.index)" }
        return names
    }

    // MARK: End of run

    /// Drops every slot's instances, as the end of a program would.
    func releaseEverything() {
        for slot in controllerSlots { _ = slot.replace(with: nil) }
        for slot in objectSlots { _ = slot.replace(with: nil) }
    }

    /// Ids of the stress objects still alive that are in no object slot (released or adopted during the run).
    private func releasedObjectsAlive() -> Set<Int> {
        let inSlots = Set(objectSlots.compactMap { $0.object?.id })
        // Weak references are loaded outside the records' lock: a reference taken may be the last one dropped.
        let alive = tracked.current.compactMap { ($0.reference.object as? StressObject)?.id }
        return Set(alive).subtracting(inSlots)
    }

    /// The objects out of their slots that stay alive over a few milliseconds: a value-sequence consumer running
    /// beside a chaos round holds an object for an instant while it makes its iterator, so an object alive at one
    /// look may be on its way out; one that something still holds stays alive at every look.
    private func releasedObjectsStillHeld() -> Set<Int> {
        var alive = releasedObjectsAlive()
        var looks = 0
        while !alive.isEmpty, looks < 20 {
            usleep(1_000)
            alive.formIntersection(releasedObjectsAlive())
            looks += 1
        }
        return alive
    }

    /// Whether the stress object with id `id` is still alive.
    func isAlive(object id: Int) -> Bool {
        tracked.current.contains { ($0.reference.object as? StressObject)?.id == id }
    }

    /// Instances still alive, by kind (call after ``releaseEverything()``).
    func survivors() -> [String: Int] {
        var counts: [String: Int] = [:]
        for instance in tracked.current where instance.reference.object != nil {
            counts[instance.kind, default: 0] += 1
        }
        return counts
    }

    /// Notifications received on threads that are not workers.
    var deliveriesOffWorkers: [DeliveryRecord] {
        strayDeliveries.current
    }

    /// Notifications that reached an observer's `observeValue` with a context no registration was made with.
    var unroutedNotifications: Int {
        unrouted.word.loadInt(ordering: .relaxed)
    }

    /// Lifetime facts merged into `history` (whose operations must be in place): `objectDeinits` (the workers')
    /// become ``History/objectDeinitTimes``, and the objects out of their slots that are still alive
    /// ``History/releasedObjectsAliveAtEnd``. Call once the workers finished, before ``releaseEverything()``.
    func addFacts(to history: inout History, objectDeinits: [ObjectDeinitRecord]) {
        var returns: [Int: UInt64] = [:]
        for record in history.operations { returns[record.id] = record.ret }
        for deinitRecord in objectDeinits {
            guard let end = returns[deinitRecord.operation] else { continue }
            history.objectDeinitTimes[deinitRecord.object] = end
        }
        history.releasedObjectsAliveAtEnd = releasedObjectsStillHeld()
        facts.update { facts in
            history.observerDeinitTimes = facts.observerDeinitTimes
            history.controllerEndStartTimes = facts.controllerEndTimes.mapValues(\.started)
            history.controllerEndTimes = facts.controllerEndTimes.mapValues(\.finished)
            history.controllerObservers = facts.controllerObservers
            history.weakControllers = facts.weakControllers
        }
    }

    // MARK: Recording notifications

    func recordDelivery(
        for registration: HarnessRegistration, observer: StressObserver?, object: StressObject, change: KeyValueChange
    ) {
        noteUserCode("the handler of registration #\(registration.id)")
        let now = clock.now
        let worker = WorkerContext.current
        let record = DeliveryRecord(
            registration: registration.id, cause: worker?.cause ?? -1, worker: worker?.index ?? -1,
            sequence: worker?.makeSequence() ?? 0, time: now, kind: UInt8(change.kind.rawValue),
            isPrior: change.isPrior, hasOld: change.oldValue != nil, hasNew: change.newValue != nil,
            oldValue: StressValue.encode(change.oldValue), newValue: StressValue.encode(change.newValue),
            observer: observer?.id ?? -1, keyPathMatches: change.keyPath.utf8.elementsEqual(registration.keyPath.utf8),
            indexMask: StressValue.mask(change.indexes), object: object.id)
        if let worker {
            worker.deliveries.append(record)
            traceRecorder?.record(
                .delivered(registration: record.registration, cause: record.cause, isPrior: record.isPrior),
                worker: worker.index)
        } else {
            strayDeliveries.update { $0.append(record) }
        }
    }
}
