import FaultInjector
import Foundation
import GuardCore

/// Systems under test with planted bugs that only the controlled runner's scheduler can pin down.
enum ControlledTargets {
    /// The guard behind a facade that answers from its own check-then-act dedup table: it checks "already
    /// observed?" under its lock, lets go of the lock, registers with the guard, and only then records the key, and
    /// it reports `registered` whatever the guard said. Correct whenever one call runs at a time; two observes of
    /// the same key path that interleave between the check and the record both report `registered`.
    struct RacyDedup: SystemUnderTest {
        let name = "racy-dedup"
        let promisesGuardSemantics = true

        func makeController(for observer: StressObserver, retainsObjects: Bool) -> any StressController {
            Controller(
                inner: GuardTarget(diagnostics: CountingSink(keepsEvents: false))
                    .makeController(for: observer, retainsObjects: retainsObjects))
        }

        final class Controller: StressController, @unchecked Sendable {
            private struct Key: Hashable {
                let object: Int
                let keyPath: String
            }

            private let inner: any StressController
            private let lock = Lock()
            private var keys: Set<Key> = []

            init(inner: any StressController) { self.inner = inner }

            func observe(_ object: StressObject, keyPath: String, options: KeyValueObservingOptions, sink: DeliverySink) -> ObserveOutcome {
                let key = Key(object: object.id, keyPath: keyPath)
                let known = lock.withLock { keys.contains(key) }
                if known { return .duplicate }
                _ = inner.observe(object, keyPath: keyPath, options: options, sink: sink)
                lock.withLock { _ = keys.insert(key) }
                return .registered
            }

            func unobserve(_ object: StressObject, keyPath: String) -> UnobserveOutcome {
                lock.withLock { _ = keys.remove(Key(object: object.id, keyPath: keyPath)) }
                return inner.unobserve(object, keyPath: keyPath)
            }

            func unobserve(_ object: StressObject) -> UnobserveOutcome {
                lock.withLock { keys = keys.filter { $0.object != object.id } }
                return inner.unobserve(object)
            }

            func unobserveAll() {
                lock.withLock { keys = [] }
                inner.unobserveAll()
            }
        }
    }

    /// The guard behind a wrapper whose unobserve-all takes the controller's lock (one that announces itself to
    /// the scheduler) and returns without releasing it: the next unobserve-all of that controller, on any worker,
    /// waits forever. Each controller has its own lock, so a run abandoned with a lock held leaves nothing held
    /// for the next run (its controllers stay alive, so the lock is never destroyed while held).
    struct LockLeak: SystemUnderTest {
        let name = "lock-leak"
        let promisesGuardSemantics = true

        func makeController(for observer: StressObserver, retainsObjects: Bool) -> any StressController {
            Controller(
                inner: GuardTarget(diagnostics: CountingSink(keepsEvents: false))
                    .makeController(for: observer, retainsObjects: retainsObjects),
                lock: Lock())
        }

        final class Controller: StressController, @unchecked Sendable {
            let inner: any StressController
            let lock: Lock
            init(inner: any StressController, lock: Lock) {
                self.inner = inner
                self.lock = lock
            }
            func observe(_ object: StressObject, keyPath: String, options: KeyValueObservingOptions, sink: DeliverySink) -> ObserveOutcome {
                inner.observe(object, keyPath: keyPath, options: options, sink: sink)
            }
            func unobserve(_ object: StressObject, keyPath: String) -> UnobserveOutcome { inner.unobserve(object, keyPath: keyPath) }
            func unobserve(_ object: StressObject) -> UnobserveOutcome { inner.unobserve(object) }
            func unobserveAll() {
                lock.lock()
                inner.unobserveAll()
                // The early return that never unlocks.
            }
        }
    }

    /// The guard behind a wrapper whose unobserve-all waits on the controller's semaphore, which nobody signals
    /// (a real wait the scheduler cannot see).
    struct SilentSemaphore: SystemUnderTest {
        let name = "silent-semaphore"
        let promisesGuardSemantics = true

        func makeController(for observer: StressObserver, retainsObjects: Bool) -> any StressController {
            Controller(
                inner: GuardTarget(diagnostics: CountingSink(keepsEvents: false))
                    .makeController(for: observer, retainsObjects: retainsObjects),
                semaphore: DispatchSemaphore(value: 0))
        }

        final class Controller: StressController, @unchecked Sendable {
            let inner: any StressController
            let semaphore: DispatchSemaphore
            init(inner: any StressController, semaphore: DispatchSemaphore) {
                self.inner = inner
                self.semaphore = semaphore
            }
            func observe(_ object: StressObject, keyPath: String, options: KeyValueObservingOptions, sink: DeliverySink) -> ObserveOutcome {
                inner.observe(object, keyPath: keyPath, options: options, sink: sink)
            }
            func unobserve(_ object: StressObject, keyPath: String) -> UnobserveOutcome { inner.unobserve(object, keyPath: keyPath) }
            func unobserve(_ object: StressObject) -> UnobserveOutcome { inner.unobserve(object) }
            func unobserveAll() {
                semaphore.wait()
                inner.unobserveAll()
            }
        }
    }

    /// The guard behind a wrapper whose unobserve-all removes object by object in the order of a set of object
    /// identities, which follows memory addresses: the same schedule need not repeat the same run.
    struct AddressOrdered: SystemUnderTest {
        let name = "address-ordered"
        let promisesGuardSemantics = true

        func makeController(for observer: StressObserver, retainsObjects: Bool) -> any StressController {
            Controller(
                inner: GuardTarget(diagnostics: CountingSink(keepsEvents: false))
                    .makeController(for: observer, retainsObjects: retainsObjects))
        }

        final class Controller: StressController, @unchecked Sendable {
            private let inner: any StressController
            private let lock = Lock()
            private var objects: [ObjectIdentifier: WeakBox] = [:]

            final class WeakBox {
                weak var object: StressObject?
                init(_ object: StressObject) { self.object = object }
            }

            init(inner: any StressController) { self.inner = inner }

            func observe(_ object: StressObject, keyPath: String, options: KeyValueObservingOptions, sink: DeliverySink) -> ObserveOutcome {
                lock.withLock { objects[ObjectIdentifier(object)] = WeakBox(object) }
                return inner.observe(object, keyPath: keyPath, options: options, sink: sink)
            }

            func unobserve(_ object: StressObject, keyPath: String) -> UnobserveOutcome { inner.unobserve(object, keyPath: keyPath) }
            func unobserve(_ object: StressObject) -> UnobserveOutcome { inner.unobserve(object) }

            func unobserveAll() {
                let live = lock.withLock { objects.values.compactMap(\.object) }
                for object in live { _ = inner.unobserve(object) }
                inner.unobserveAll()
            }
        }
    }

    /// The guard, counting how many threads run a stretch of code without schedule points at the same instant (at
    /// most one under the controlled runner; usually more under the chaos runner).
    final class OverlapCounter: SystemUnderTest, @unchecked Sendable {
        let name = "overlap-counter"
        let promisesGuardSemantics = true
        private let inside = AtomicCell()
        private let most = AtomicCell()

        /// The most threads seen inside a call at the same time.
        var maximumOverlap: Int { most.word.loadInt(ordering: .relaxed) }

        func makeController(for observer: StressObserver, retainsObjects: Bool) -> any StressController {
            Controller(
                inner: GuardTarget(diagnostics: CountingSink(keepsEvents: false))
                    .makeController(for: observer, retainsObjects: retainsObjects),
                counter: self)
        }

        fileprivate func measure<Result>(_ body: () -> Result) -> Result {
            let now = inside.word.add(1, ordering: .acquiringAndReleasing)
            while true {
                let seen = most.word.load(ordering: .relaxed)
                if UInt64(now) <= seen || most.word.compareExchange(expected: seen, desired: UInt64(now)).exchanged { break }
            }
            // Long enough for a second thread to get in if anything let it; no schedule point inside.
            var sink = 0
            for step in 0..<2_000 { sink &+= step }
            if sink == -1 { print(sink) }
            inside.word.add(-1, ordering: .acquiringAndReleasing)
            return body()
        }

        final class Controller: StressController, @unchecked Sendable {
            let inner: any StressController
            let counter: OverlapCounter
            init(inner: any StressController, counter: OverlapCounter) {
                self.inner = inner
                self.counter = counter
            }
            func observe(_ object: StressObject, keyPath: String, options: KeyValueObservingOptions, sink: DeliverySink) -> ObserveOutcome {
                counter.measure { inner.observe(object, keyPath: keyPath, options: options, sink: sink) }
            }
            func unobserve(_ object: StressObject, keyPath: String) -> UnobserveOutcome {
                counter.measure { inner.unobserve(object, keyPath: keyPath) }
            }
            func unobserve(_ object: StressObject) -> UnobserveOutcome { counter.measure { inner.unobserve(object) } }
            func unobserveAll() { counter.measure { inner.unobserveAll() } }
        }
    }
}

/// Controlled-run scenarios and settings shared by the tests.
enum ControlledFixtures {
    /// The controlled runner's default scenario shape with `workers` × `operations`.
    static func configuration(workers: Int = 4, operations: Int = 25) -> ScenarioConfiguration {
        var configuration = ScenarioConfiguration.controlledDefault
        configuration.workers = workers
        configuration.operationsPerWorker = operations
        return configuration
    }

    /// Settings for `strategy`, with an optional trace.
    static func settings(_ strategy: StrategyChoice, recordsTrace: Bool = false) -> ControlledRunner.Settings {
        var settings = ControlledRunner.Settings()
        settings.strategy = strategy
        settings.recordsTrace = recordsTrace
        return settings
    }

    /// A scenario with explicit operation texts, one list per worker.
    static func scenario(_ texts: [[String]], objects: Int = 1, controllers: Int = 1, seed: UInt64 = 1) -> Scenario {
        var configuration = ScenarioConfiguration.controlledDefault
        configuration.workers = texts.count
        configuration.operationsPerWorker = texts.map(\.count).max() ?? 0
        configuration.objects = objects
        configuration.controllers = controllers
        configuration.weakHoldingEvery = 0
        let operations = texts.map { $0.map { Operation($0)! } }
        return Scenario(configuration: configuration, seed: seed, operations: operations)
    }

    /// Observes, unobserves and mutations of one object through one controller by two workers, no handler actions:
    /// the shape in which ``ControlledTargets/RacyDedup``'s race shows.
    static func dedupRaceConfiguration() -> ScenarioConfiguration {
        var configuration = ScenarioConfiguration.controlledDefault
        configuration.workers = 2
        configuration.operationsPerWorker = 8
        configuration.objects = 1
        configuration.controllers = 1
        configuration.weakHoldingEvery = 0
        configuration.mix = OperationMix()
        configuration.mix.observe = 40
        configuration.mix.observeInitial = 0
        configuration.mix.unobserve = 20
        configuration.mix.doubleUnobserve = 0
        configuration.mix.unobserveObject = 0
        configuration.mix.unobserveAll = 0
        configuration.mix.mutate = 40
        configuration.mix.releaseObserver = 0
        configuration.mix.releaseController = 0
        configuration.mix.releaseObject = 0
        configuration.actions = HandlerActionMix()
        configuration.actions.none = 1
        configuration.actions.unobserveSelf = 0
        configuration.actions.unobserveAll = 0
        configuration.actions.releaseController = 0
        configuration.actions.mutate = 0
        configuration.actions.observe = 0
        return configuration
    }
}
