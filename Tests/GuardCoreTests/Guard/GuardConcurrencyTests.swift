import Foundation
import GuardCore

import XCTest

/// Many Dispatch queues, released together from a barrier, hammer one shared controller, one shared weak controller
/// and one controller per worker, all on shared objects, with observe / unobserve / unobserve(object) /
/// unobserveAll / mutate / release-and-replace (of objects, controllers and observers).
///
/// Design for an exactly known end state: every (controller, object, key path) triple is *owned* by one worker, the
/// only one that ever registers or removes it, so each worker can predict every result (`registered` / `duplicate`,
/// `removed` / `alreadyRemoved` / `notRegistered`) and every diagnostic it causes, however the threads interleave.
/// The contention is real all the same: every worker's operations go through the same controllers' locks and the same
/// objects' runtime tables, and every worker mutates the shared objects, so notifications race with registrations
/// and removals everywhere.
///
/// - Shared controller `S` (retains its objects) and shared controller `W` (`retainsObservedObjects: false`): the
///   triple (controller, shared object i, key k) belongs to one worker; each worker also owns a few private objects
///   that it observes through `S` and `W` and releases and replaces (dropped from `W` by deinitialization while
///   observed: FBKVOController issue #140 under concurrency).
/// - One controller per worker, observing shared and private objects; released and replaced (with a new observer) now
///   and then; sometimes its observer is released while it keeps observing (FBKVOController issue #83).
/// - `.initial` registrations sometimes unobserve from inside their initial callback (radar 34307466) while other
///   threads change the same object.
///
/// Mutations of a given object hold that object's test lock: concurrent unsynchronised sets of one Swift property are
/// a data race anywhere. The guard's own bookkeeping needs no such lock. `.initial` is never combined with `.new`
/// here, because reading the value for the initial notification would race (in the test) with another thread's set.
final class GuardConcurrencyTests: XCTestCase {
    static let workerCount = 36
    static let operationsPerWorker = 4_000
    static let sharedObjectCount = 8
    static let privateSlotCount = 3
    static let keys = ["name", "age", "firstName", "lastName", "nickname", "fullName"]
    /// `fullName` is computed (it depends on firstName and lastName); the others can be set.
    static let settableKeyCount = 5
    static let optionChoices: [KeyValueObservingOptions] = [
        [], .new, [.old, .new], [.prior, .old], [.prior, .new], [.prior, .old, .new], .initial, [.initial, .old],
        [.initial, .prior, .old],
    ]

    // MARK: Shared pieces

    /// A shared object and the lock every mutation of it holds.
    final class SharedObject: @unchecked Sendable {
        let person = Person()
        let lock = NSLock()
    }

    /// What the handlers saw that they should not have, and how many notifications they got.
    final class Checks: @unchecked Sendable {
        let deliveries = AtomicCell()
        private let lock = NSLock()
        private var storedViolations: [String] = []

        func violation(_ text: String) { lock.withLock { storedViolations.append(text) } }
        var violations: [String] { lock.withLock { storedViolations } }
    }

    /// Arms "unobserve from inside the initial callback" for one observe call on one thread.
    final class InitialProbe: @unchecked Sendable {
        private let lock = NSLock()
        private var armedThread: UInt64?
        private var storedResult: UnobserveResult?

        func arm() {
            let thread = CurrentThread.identifier
            lock.withLock { armedThread = thread }
        }

        /// True once, for the initial callback on the arming thread.
        func fireIfArmedHere() -> Bool {
            let thread = CurrentThread.identifier
            return lock.withLock {
                guard armedThread == thread else { return false }
                armedThread = nil
                return true
            }
        }

        func record(_ result: UnobserveResult?) { lock.withLock { storedResult = result } }

        /// Disarms and returns what the initial callback's unobserve returned, if it ran.
        func finish() -> UnobserveResult? {
            lock.withLock {
                armedThread = nil
                return storedResult
            }
        }
    }

    enum TripleState { case never, registered, removed }

    struct SharedTriple: Hashable {
        /// 0: the shared retaining controller `S`; 1: the shared weak controller `W`.
        let controller: Int
        let object: Int
        let key: Int
    }

    /// The owner of (controller, shared object, key): spreads the 2 × 8 × 6 triples over the workers.
    static func owner(_ triple: SharedTriple) -> Int {
        (triple.controller * 7 + triple.object * keys.count + triple.key) % workerCount
    }

    struct PrivateSlot {
        var person: Person
        var inS: [Int: TripleState] = [:]
        var inW: [Int: TripleState] = [:]
    }

    /// Everything one worker owns. Touched only by its own queue until the workers are joined, then by the test.
    final class Worker: @unchecked Sendable {
        let index: Int
        let environment: Environment
        var rng: SplitMix64
        var failures: [String] = []
        var ownedShared: [SharedTriple] = []
        var sharedStates: [SharedTriple: TripleState] = [:]
        var slots: [PrivateSlot]
        var controller: ObservationController<GuardTestObserver>?
        var controllerObserver: GuardTestObserver?
        /// The own controller's observer, fixed for the controller's life (even after this worker dropped it).
        var controllerObserverIdentity = (ObjectIdentifier(GuardConcurrencyTests.self), "")
        var controllerSink = CountingSink(keepsEvents: false)
        var controllerStates: [ObjectIdentifier: [Int: TripleState]] = [:]
        var controllerExpected: [GuardDiagnostic.Kind: Int] = [:]
        /// While the own controller's observer is gone: how many registrations could each report it once.
        var observerGoneBound: Int?
        var expectedS: [GuardDiagnostic.Kind: Int] = [:]
        var expectedW: [GuardDiagnostic.Kind: Int] = [:]
        var released: [(String, WeakRef<AnyObject>)] = []
        var operationCounts: [String: Int] = [:]

        init(index: Int, environment: Environment) {
            self.index = index
            self.environment = environment
            self.rng = SplitMix64(state: 0x5EED_0000 &+ UInt64(index) &* 0x1_0001)
            self.slots = (0..<GuardConcurrencyTests.privateSlotCount).map { _ in PrivateSlot(person: Person()) }
            for controller in 0..<2 {
                for object in 0..<GuardConcurrencyTests.sharedObjectCount {
                    for key in 0..<GuardConcurrencyTests.keys.count {
                        let triple = SharedTriple(controller: controller, object: object, key: key)
                        if GuardConcurrencyTests.owner(triple) == index { ownedShared.append(triple) }
                    }
                }
            }
            makeOwnController()
        }

        // MARK: Model-checked operations

        func fail(_ text: String) { failures.append("worker \(index): \(text)") }

        func count(_ operation: String) { operationCounts[operation, default: 0] += 1 }

        static func predictObserve(_ state: TripleState) -> ObserveResult {
            state == .registered ? .duplicate : .registered
        }

        static func predictUnobserve(_ state: TripleState) -> UnobserveResult {
            switch state {
            case .registered: return .removed
            case .removed: return .alreadyRemoved
            case .never: return .notRegistered
            }
        }

        static func predictUnobserveObject(_ states: [Int: TripleState]) -> UnobserveResult {
            if states.values.contains(.registered) { return .removed }
            if states.values.contains(.removed) { return .alreadyRemoved }
            return .notRegistered
        }

        func makeHandler(
            name: String, object: Person, keyPath: String, observer expectedObserver: ObjectIdentifier,
            observerName expectedObserverName: String, probe: InitialProbe?
        ) -> @Sendable (GuardTestObserver, Person, KeyValueChange) -> Void {
            let expectedObject = ObjectIdentifier(object)
            let checks = environment.checks
            let worker = index
            return { observer, object, change in
                checks.deliveries.word.add(1, ordering: .relaxed)
                if ObjectIdentifier(object) != expectedObject || ObjectIdentifier(observer) != expectedObserver
                    || change.keyPath != keyPath
                {
                    checks.violation(
                        "worker \(worker) \(name) handler for \(keyPath) got \(change.keyPath); object ok: "
                            + "\(ObjectIdentifier(object) == expectedObject); observer \(observer.name), expected "
                            + "\(expectedObserverName)")
                }
                if let probe, probe.fireIfArmedHere() {
                    probe.record(observer.controller?.unobserve(object, keyPath: keyPath))
                }
            }
        }

        /// Observes and checks the result against `state`; with `.initial`, sometimes unobserves from inside the
        /// initial callback (then the registration ends up removed).
        /// - Parameters:
        ///   - observer: The identity and name of the controller's observer (the handler must get exactly it).
        ///   - observerHeld: Whether this worker still holds the observer; only then may the initial callback be
        ///     counted on to run (a dropped observer may linger a moment while other threads' deliveries hold it).
        func observe(
            _ controller: ObservationController<GuardTestObserver>, observer: (ObjectIdentifier, String),
            observerHeld: Bool, name: String, object: Person, key: Int, state: inout TripleState,
            expected: inout [GuardDiagnostic.Kind: Int]
        ) -> ObserveResult {
            let keyPath = GuardConcurrencyTests.keys[key]
            let options = GuardConcurrencyTests.optionChoices[rng.below(GuardConcurrencyTests.optionChoices.count)]
            let unobserveInInitial = observerHeld && options.contains(.initial) && rng.chance(50)
            let probe = unobserveInInitial ? InitialProbe() : nil
            let predicted = Self.predictObserve(state)
            probe?.arm()
            let result = controller.observe(
                object, keyPath: keyPath, options: options,
                handler: makeHandler(
                    name: name, object: object, keyPath: keyPath, observer: observer.0, observerName: observer.1,
                    probe: probe))
            let innerResult = probe?.finish()
            if !observerHeld, result == .invalid(.observerDeallocated) {
                // The dropped observer is gone for good: no handler could ever run, so nothing is registered.
                expected[.invalidArgument, default: 0] += 1
                return result
            }
            if result != predicted { fail("\(name).observe(\(keyPath)) returned \(result), expected \(predicted)") }
            switch result {
            case .registered:
                state = .registered
                count("observe")
                if probe != nil {
                    count("unobserve-in-initial")
                    if innerResult != .removed {
                        fail(
                            "\(name): unobserve inside .initial of \(keyPath) returned \(String(describing: innerResult))"
                        )
                    }
                    state = .removed
                }
            case .duplicate:
                expected[.duplicateObservation, default: 0] += 1
                count("observe-duplicate")
                if innerResult != nil { fail("\(name): a duplicate's initial callback ran") }
            case .invalid:
                break
            }
            return result
        }

        func unobserve(
            _ controller: ObservationController<GuardTestObserver>, name: String, object: Person, key: Int,
            state: inout TripleState, expected: inout [GuardDiagnostic.Kind: Int]
        ) {
            let keyPath = GuardConcurrencyTests.keys[key]
            let predicted = Self.predictUnobserve(state)
            let result = controller.unobserve(object, keyPath: keyPath)
            if result != predicted { fail("\(name).unobserve(\(keyPath)) returned \(result), expected \(predicted)") }
            note(result, state: &state, expected: &expected)
        }

        func unobserveObject(
            _ controller: ObservationController<GuardTestObserver>, name: String, object: Person,
            states: inout [Int: TripleState], expected: inout [GuardDiagnostic.Kind: Int]
        ) {
            let predicted = Self.predictUnobserveObject(states)
            let result = controller.unobserve(object)
            if result != predicted { fail("\(name).unobserve(object) returned \(result), expected \(predicted)") }
            switch result {
            case .removed:
                for (key, state) in states where state == .registered { states[key] = .removed }
                count("unobserve-object")
            case .alreadyRemoved:
                expected[.doubleRemoval, default: 0] += 1
                count("unobserve-object-double")
            case .notRegistered:
                expected[.removalOfUnregistered, default: 0] += 1
                count("unobserve-object-unregistered")
            case .invalid:
                break
            }
        }

        private func note(
            _ result: UnobserveResult, state: inout TripleState, expected: inout [GuardDiagnostic.Kind: Int]
        ) {
            switch result {
            case .removed:
                state = .removed
                count("unobserve")
            case .alreadyRemoved:
                expected[.doubleRemoval, default: 0] += 1
                count("unobserve-double")
            case .notRegistered:
                expected[.removalOfUnregistered, default: 0] += 1
                count("unobserve-unregistered")
            case .invalid:
                break
            }
        }

        // MARK: The worker's own controller

        func makeOwnController() {
            let observer = GuardTestObserver("worker-\(index)")
            let sink = CountingSink(keepsEvents: false)
            let controller = ObservationController(
                observer: observer, retainsObservedObjects: rng.chance(50), diagnosticSink: sink)
            observer.controller = controller
            self.controller = controller
            controllerObserver = observer
            controllerObserverIdentity = (ObjectIdentifier(observer), observer.name)
            controllerSink = sink
            controllerStates = [:]
            controllerExpected = [:]
            observerGoneBound = nil
        }

        /// Checks the own controller's diagnostics against the model.
        func checkOwnControllerDiagnostics(_ when: String) {
            for kind in [
                GuardDiagnostic.Kind.duplicateObservation, .doubleRemoval, .removalOfUnregistered, .invalidArgument,
            ] {
                let got = controllerSink.count(of: kind)
                let expected = controllerExpected[kind, default: 0]
                if got != expected { fail("own controller \(when): \(got) \(kind) events, expected \(expected)") }
            }
            let gone = controllerSink.count(of: .observerDeallocated)
            if gone > (observerGoneBound ?? 0) {
                fail(
                    "own controller \(when): \(gone) observerDeallocated events, at most \(observerGoneBound ?? 0) possible"
                )
            }
        }

        func releaseOwnController() {
            checkOwnControllerDiagnostics("before release")
            if let controller { released.append(("own controller", weakly(controller))) }
            if let observer = controllerObserver {
                released.append(("own observer", weakly(observer)))
                observer.controller = nil
            }
            controller = nil
            controllerObserver = nil
            count("release-controller")
            makeOwnController()
        }

        func releaseOwnObserver() {
            guard let observer = controllerObserver else { return }
            released.append(("own observer (controller kept)", weakly(observer)))
            controllerObserver = nil
            observerGoneBound = controllerStates.values.reduce(0) { $0 + $1.values.filter { $0 == .registered }.count }
            count("release-observer")
        }

        func ownControllerObject() -> Person {
            let pick = rng.below(GuardConcurrencyTests.sharedObjectCount + GuardConcurrencyTests.privateSlotCount)
            if pick < GuardConcurrencyTests.sharedObjectCount { return environment.shared[pick].person }
            return slots[pick - GuardConcurrencyTests.sharedObjectCount].person
        }

        // MARK: Private objects

        func releasePrivateObject(_ slotIndex: Int) {
            let person = slots[slotIndex].person
            let id = ObjectIdentifier(person)
            // S retains it: remove it from S first. W holds it weakly: its registrations must go with the object.
            unobserveObject(
                environment.controllerS, name: "S", object: person, states: &slots[slotIndex].inS, expected: &expectedS)
            if let controller, controller.retainsObservedObjects {
                var states = controllerStates[id] ?? [:]
                unobserveObject(controller, name: "own", object: person, states: &states, expected: &controllerExpected)
            }
            controllerStates[id] = nil
            released.append(("private object", weakly(person)))
            slots[slotIndex] = PrivateSlot(person: Person())
            count("release-object")
        }

        // MARK: Mutations

        func set(_ key: Int, on person: Person) {
            switch key {
            case 0: person.name = ["ann", "bob", "cy"][rng.below(3)]
            case 1: person.age = rng.below(100)
            case 2: person.firstName = ["al", "bo"][rng.below(2)]
            case 3: person.lastName = ["x", "y"][rng.below(2)]
            default: person.nickname = rng.chance(30) ? nil : "n\(rng.below(5))"
            }
        }

        // MARK: The run

        func run() {
            let environment = self.environment
            for _ in 0..<GuardConcurrencyTests.operationsPerWorker {
                let roll = rng.below(100)
                switch roll {
                case 0..<16 where !ownedShared.isEmpty:
                    let triple = ownedShared[rng.below(ownedShared.count)]
                    let (controller, observer) = environment.controller(triple.controller)
                    let identity = (ObjectIdentifier(observer), observer.name)
                    let object = environment.shared[triple.object].person
                    var state = sharedStates[triple] ?? .never
                    if triple.controller == 0 {
                        _ = observe(
                            controller, observer: identity, observerHeld: true, name: "S", object: object,
                            key: triple.key,
                            state: &state, expected: &expectedS)
                    } else {
                        _ = observe(
                            controller, observer: identity, observerHeld: true, name: "W", object: object,
                            key: triple.key,
                            state: &state, expected: &expectedW)
                    }
                    sharedStates[triple] = state
                case 16..<26 where !ownedShared.isEmpty:
                    let triple = ownedShared[rng.below(ownedShared.count)]
                    let (controller, _) = environment.controller(triple.controller)
                    var state = sharedStates[triple] ?? .never
                    if triple.controller == 0 {
                        unobserve(
                            controller, name: "S", object: environment.shared[triple.object].person, key: triple.key,
                            state: &state, expected: &expectedS)
                    } else {
                        unobserve(
                            controller, name: "W", object: environment.shared[triple.object].person, key: triple.key,
                            state: &state, expected: &expectedW)
                    }
                    sharedStates[triple] = state
                case 26..<32:
                    // S or W on a private object.
                    let slot = rng.below(slots.count)
                    let key = rng.below(GuardConcurrencyTests.keys.count)
                    let person = slots[slot].person
                    let useW = rng.chance(50)
                    let (controller, observer) = environment.controller(useW ? 1 : 0)
                    let identity = (ObjectIdentifier(observer), observer.name)
                    var state = (useW ? slots[slot].inW[key] : slots[slot].inS[key]) ?? .never
                    if rng.chance(60) {
                        if useW {
                            _ = observe(
                                controller, observer: identity, observerHeld: true, name: "W", object: person, key: key,
                                state: &state, expected: &expectedW)
                        } else {
                            _ = observe(
                                controller, observer: identity, observerHeld: true, name: "S", object: person, key: key,
                                state: &state, expected: &expectedS)
                        }
                    } else if useW {
                        unobserve(controller, name: "W", object: person, key: key, state: &state, expected: &expectedW)
                    } else {
                        unobserve(controller, name: "S", object: person, key: key, state: &state, expected: &expectedS)
                    }
                    if useW { slots[slot].inW[key] = state } else { slots[slot].inS[key] = state }
                case 32..<42:
                    guard let controller else { break }
                    let person = ownControllerObject()
                    let key = rng.below(GuardConcurrencyTests.keys.count)
                    let id = ObjectIdentifier(person)
                    var state = controllerStates[id]?[key] ?? .never
                    let result = observe(
                        controller, observer: controllerObserverIdentity, observerHeld: controllerObserver != nil,
                        name: "own", object: person, key: key, state: &state, expected: &controllerExpected)
                    if result == .registered, let bound = observerGoneBound { observerGoneBound = bound + 1 }
                    controllerStates[id, default: [:]][key] = state
                case 42..<50:
                    guard let controller else { break }
                    let person = ownControllerObject()
                    let key = rng.below(GuardConcurrencyTests.keys.count)
                    let id = ObjectIdentifier(person)
                    var state = controllerStates[id]?[key] ?? .never
                    unobserve(
                        controller, name: "own", object: person, key: key, state: &state, expected: &controllerExpected)
                    controllerStates[id, default: [:]][key] = state
                case 50..<52:
                    guard let controller else { break }
                    let person = ownControllerObject()
                    let id = ObjectIdentifier(person)
                    var states = controllerStates[id] ?? [:]
                    unobserveObject(
                        controller, name: "own", object: person, states: &states, expected: &controllerExpected)
                    controllerStates[id] = states
                case 52:
                    controller?.unobserveAll()
                    for (id, states) in controllerStates {
                        controllerStates[id] = states.mapValues { $0 == .registered ? .removed : $0 }
                    }
                    count("unobserve-all")
                case 53:
                    releaseOwnController()
                case 54 where rng.chance(50):
                    releaseOwnObserver()
                case 55..<57:
                    releasePrivateObject(rng.below(slots.count))
                case 57..<92:
                    let object = environment.shared[rng.below(environment.shared.count)]
                    let key = rng.below(GuardConcurrencyTests.settableKeyCount)
                    object.lock.withLock { set(key, on: object.person) }
                    count("mutate-shared")
                default:
                    set(rng.below(GuardConcurrencyTests.settableKeyCount), on: slots[rng.below(slots.count)].person)
                    count("mutate-private")
                }
            }
        }
    }

    /// The shared part of the run.
    final class Environment: @unchecked Sendable {
        let shared = (0..<GuardConcurrencyTests.sharedObjectCount).map { _ in SharedObject() }
        let checks = Checks()
        let sharedObserverS = GuardTestObserver("shared S")
        let sharedObserverW = GuardTestObserver("shared W")
        let sinkS = CountingSink(keepsEvents: false)
        let sinkW = CountingSink(keepsEvents: false)
        let controllerS: ObservationController<GuardTestObserver>
        let controllerW: ObservationController<GuardTestObserver>

        init() {
            controllerS = ObservationController(observer: sharedObserverS, diagnosticSink: sinkS)
            controllerW = ObservationController(
                observer: sharedObserverW, retainsObservedObjects: false, diagnosticSink: sinkW)
            // The observers own their controllers, so an initial callback can reach the controller it runs for.
            sharedObserverS.controller = controllerS
            sharedObserverW.controller = controllerW
        }

        func controller(_ which: Int) -> (ObservationController<GuardTestObserver>, GuardTestObserver) {
            which == 0 ? (controllerS, sharedObserverS) : (controllerW, sharedObserverW)
        }
    }

    // MARK: The test

    func testManyQueuesHammerSharedAndOwnControllersOnSharedObjects() throws {
        // Resolve the computed key once, single-threaded: the first lookup of "fullName" reads firstName and lastName
        // to learn that the key exists, which would race (in the test) with the sets of another thread.
        do {
            let warmUp = Person()
            let observer = GuardTestObserver()
            let controller = ObservationController(observer: observer, diagnosticSink: CountingSink())
            XCTAssertEqual(
                controller.observe(warmUp, keyPath: "fullName") { _, _, change in
                    XCTFail("unexpected handler call: \(change)")
                }, .registered)
        }

        let baseline = liveObservances
        var environment: Environment? = Environment()
        var workers: [Worker] = []
        let started = Date()
        // A deadlock (say, a handler called under a guard lock) would otherwise hang the run until the wait below.
        let misuses = withDeadlockWatchdog(seconds: 600, "the concurrency run") {
            recordingMisuse {
                guard let env = environment else { return }
                workers = (0..<Self.workerCount).map { Worker(index: $0, environment: env) }
                let ready = DispatchGroup()
                let done = DispatchGroup()
                let go = DispatchSemaphore(value: 0)
                for worker in workers {
                    ready.enter()
                    DispatchQueue(label: "guard-tests.concurrency.worker-\(worker.index)").async(group: done) {
                        ready.leave()
                        go.wait()
                        worker.run()
                    }
                }
                let allReady = ready.wait(timeout: .now() + 60) == .success
                XCTAssertTrue(allReady, "not every queue reached the start barrier")
                for _ in workers { go.signal() }
                XCTAssertEqual(done.wait(timeout: .now() + 590), .success, "workers did not finish (deadlock?)")
            }
        }
        let elapsed = Date().timeIntervalSince(started)
        XCTAssertEqual(misuses, [], "the guard let a misuse reach the runtime")
        var released: [(String, WeakRef<AnyObject>)] = []
        // The teardown itself must not cause a misuse either (objects and controllers deinitializing).
        let teardownMisuses = recordingMisuse {
            guard let env = environment else { return XCTFail("no environment") }
            verify(env, workers, elapsed: elapsed, baseline: baseline)

            // Teardown: release everything; nothing released may still be alive, and the runtime tables are empty.
            released = workers.flatMap(\.released)
            for worker in workers {
                if let controller = worker.controller { released.append(("own controller", weakly(controller))) }
                if let observer = worker.controllerObserver {
                    released.append(("own observer", weakly(observer)))
                    observer.controller = nil
                }
                for slot in worker.slots { released.append(("private object", weakly(slot.person))) }
                worker.controller = nil
                worker.controllerObserver = nil
                worker.slots = []
            }
            released.append(("S", weakly(env.controllerS)))
            released.append(("W", weakly(env.controllerW)))
            released.append(("S observer", weakly(env.sharedObserverS)))
            released.append(("W observer", weakly(env.sharedObserverW)))
            for object in env.shared { released.append(("shared object", weakly(object.person))) }
            env.sharedObserverS.controller = nil
            env.sharedObserverW.controller = nil
            workers = []
            environment = nil
        }
        XCTAssertEqual(teardownMisuses, [], "releasing everything caused a misuse")
        let alive = released.filter { $0.1.object != nil }.map(\.0)
        XCTAssertEqual(alive, [], "released but still alive")
        XCTAssertGreaterThan(released.count, Self.workerCount * 3)
        XCTAssertEqual(liveObservances, baseline, "every runtime table is empty again")
    }

    private func verify(_ env: Environment, _ workers: [Worker], elapsed: TimeInterval, baseline: Int) {
        // 1. Registrations: every controller holds exactly what its owners' models say.
        var mismatches: [String] = []
        var expectedS = 0
        var expectedW = 0
        for object in 0..<Self.sharedObjectCount {
            for key in 0..<Self.keys.count {
                for controller in 0..<2 {
                    let triple = SharedTriple(controller: controller, object: object, key: key)
                    let registered = workers[Self.owner(triple)].sharedStates[triple] == .registered
                    let (guardController, _) = env.controller(controller)
                    if guardController.isObserving(env.shared[object].person, keyPath: Self.keys[key]) != registered {
                        mismatches.append("\(controller == 0 ? "S" : "W") shared \(object) \(Self.keys[key])")
                    }
                    if registered {
                        if controller == 0 { expectedS += 1 } else { expectedW += 1 }
                    }
                }
            }
        }
        for worker in workers {
            for (slotIndex, slot) in worker.slots.enumerated() {
                for key in 0..<Self.keys.count {
                    let inS = slot.inS[key] == .registered
                    let inW = slot.inW[key] == .registered
                    if env.controllerS.isObserving(slot.person, keyPath: Self.keys[key]) != inS {
                        mismatches.append("S worker \(worker.index) slot \(slotIndex) \(Self.keys[key])")
                    }
                    if env.controllerW.isObserving(slot.person, keyPath: Self.keys[key]) != inW {
                        mismatches.append("W worker \(worker.index) slot \(slotIndex) \(Self.keys[key])")
                    }
                    expectedS += inS ? 1 : 0
                    expectedW += inW ? 1 : 0
                }
            }
        }
        XCTAssertEqual(env.controllerS.registrationCount, expectedS)
        XCTAssertEqual(env.controllerW.registrationCount, expectedW)

        let everyObject = env.shared.map(\.person) + workers.flatMap { $0.slots.map(\.person) }
        var ownTotal = 0
        for worker in workers {
            guard let controller = worker.controller else {
                mismatches.append("worker \(worker.index) has no controller")
                continue
            }
            var expected = 0
            for person in everyObject {
                for key in 0..<Self.keys.count {
                    let registered = worker.controllerStates[ObjectIdentifier(person)]?[key] == .registered
                    if controller.isObserving(person, keyPath: Self.keys[key]) != registered {
                        mismatches.append("own controller of worker \(worker.index): \(Self.keys[key])")
                    }
                    expected += registered ? 1 : 0
                }
            }
            if controller.registrationCount != expected {
                mismatches.append(
                    "own controller of worker \(worker.index): \(controller.registrationCount) != \(expected)")
            }
            ownTotal += controller.registrationCount
            worker.checkOwnControllerDiagnostics("at the end")
        }

        // 2. The runtime agrees, object by object and key by key.
        for person in everyObject {
            let id = ObjectIdentifier(person)
            for key in 0..<Self.keys.count {
                var expected = 0
                if env.controllerS.isObserving(person, keyPath: Self.keys[key]) { expected += 1 }
                if env.controllerW.isObserving(person, keyPath: Self.keys[key]) { expected += 1 }
                for worker in workers where worker.controllerStates[id]?[key] == .registered { expected += 1 }
                let actual = person.observationCount(forKeyPath: Self.keys[key])
                if actual != expected {
                    mismatches.append("runtime count of \(Self.keys[key]): \(actual) != \(expected)")
                }
            }
        }
        XCTAssertEqual(mismatches.count, 0, "first mismatches:\n" + mismatches.prefix(20).joined(separator: "\n"))
        XCTAssertEqual(
            liveObservances,
            baseline + env.controllerS.registrationCount + env.controllerW.registrationCount + ownTotal,
            "the runtime holds exactly the live controllers' registrations")

        // 3. Every result, every handler call and every own-controller diagnostic was as predicted.
        let failures = workers.flatMap(\.failures) + env.checks.violations
        XCTAssertEqual(failures.count, 0, "first failures:\n" + failures.prefix(20).joined(separator: "\n"))

        // 4. Diagnostics of the shared controllers: exactly what the workers caused.
        func merged(_ pick: (Worker) -> [GuardDiagnostic.Kind: Int]) -> [GuardDiagnostic.Kind: Int] {
            workers.map(pick).reduce(into: [:]) { total, counts in total.merge(counts, uniquingKeysWith: +) }
                .filter { $0.value > 0 }
        }
        XCTAssertEqual(env.sinkS.counts, merged { $0.expectedS })
        XCTAssertEqual(env.sinkW.counts, merged { $0.expectedW })

        // 5. The run did what it claims.
        let operations = workers.map(\.operationCounts).reduce(into: [String: Int]()) {
            $0.merge($1, uniquingKeysWith: +)
        }
        let deliveries = env.checks.deliveries.word.loadInt(ordering: .relaxed)
        print(
            "GuardConcurrencyTests: \(Self.workerCount) queues x \(Self.operationsPerWorker) operations in "
                + String(format: "%.2f", elapsed) + " s, \(deliveries) notifications, operations: "
                + operations.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " "))
        for operation in [
            "observe", "observe-duplicate", "unobserve", "unobserve-double", "unobserve-unregistered",
            "unobserve-object",
            "unobserve-all", "unobserve-in-initial", "release-controller", "release-observer", "release-object",
            "mutate-shared", "mutate-private",
        ] {
            XCTAssertGreaterThan(operations[operation, default: 0], 0, "no \(operation) happened")
        }
        XCTAssertGreaterThan(deliveries, 1_000)
    }
}

private func weakly(_ object: AnyObject) -> WeakRef<AnyObject> { WeakRef(object) }
