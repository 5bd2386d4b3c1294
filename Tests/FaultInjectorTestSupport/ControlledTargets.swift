import FaultInjector
import Foundation
import GuardCore

/// Systems under test with planted bugs that only the controlled runner's scheduler can pin down.
package enum ControlledTargets {
    /// The guard behind a facade that answers from its own check-then-act dedup table: it checks "already
    /// observed?" under its lock, lets go of the lock, registers with the guard, and only then records the key, and
    /// it reports `registered` whatever the guard said. Correct whenever one call runs at a time; two observes of
    /// the same key path that interleave between the check and the record both report `registered`.
    package struct RacyDedup: SystemUnderTest {
        package let name = "racy-dedup"
        package let promisesGuardSemantics = true

        package init() {}

        package func makeController(
            for observer: StressObserver, retainsObjects: Bool, diagnostics: any DiagnosticSink
        ) -> any StressController {
            Controller(
                inner: ForwardingController.guardController(
                    for: observer, retainsObjects: retainsObjects, diagnostics: diagnostics))
        }

        package final class Controller: ForwardingController, @unchecked Sendable {
            private struct Key: Hashable {
                let object: Int
                let keyPath: String
            }

            private let lock = Lock()
            private var keys: Set<Key> = []

            package override func observe(_ object: StressObject, keyPath: String, options: KeyValueObservingOptions, sink: DeliverySink, call: StressCall) -> ObserveOutcome {
                let key = Key(object: object.id, keyPath: keyPath)
                let known = lock.withLock { keys.contains(key) }
                if known { return .duplicate }
                _ = inner.observe(object, keyPath: keyPath, options: options, sink: sink, call: call)
                lock.withLock { _ = keys.insert(key) }
                return .registered
            }

            package override func unobserve(_ object: StressObject, keyPath: String, call: StressCall) -> UnobserveOutcome {
                lock.withLock { _ = keys.remove(Key(object: object.id, keyPath: keyPath)) }
                return inner.unobserve(object, keyPath: keyPath, call: call)
            }

            package override func unobserve(_ object: StressObject, call: StressCall) -> UnobserveOutcome {
                lock.withLock { keys = keys.filter { $0.object != object.id } }
                return inner.unobserve(object, call: call)
            }

            package override func unobserveAll(call: StressCall) -> Int? {
                lock.withLock { keys = [] }
                return inner.unobserveAll(call: call)
            }
        }
    }

    /// The guard behind a facade with two flaws in its unobserve. A race: it checks "registered?" under its lock,
    /// lets go of the lock, removes through the guard, and only then forgets the key, answering `removed` whatever
    /// the guard said, so two unobserves of the same key path that interleave between the check and the forgetting
    /// both answer `removed`. And a lie that needs no concurrency: an unobserve of a key path it never saw observed
    /// answers `removed` too. Both are `non-linearizable`, so a shrinker that does not keep a race a race reduces the
    /// race (each worker observes, then unobserves) to the lie (one worker's unobserve alone).
    package struct RacyRemoval: SystemUnderTest {
        package let name = "racy-removal"
        package let promisesGuardSemantics = true

        package init() {}

        package func makeController(
            for observer: StressObserver, retainsObjects: Bool, diagnostics: any DiagnosticSink
        ) -> any StressController {
            Controller(
                inner: ForwardingController.guardController(
                    for: observer, retainsObjects: retainsObjects, diagnostics: diagnostics))
        }

        package final class Controller: ForwardingController, @unchecked Sendable {
            private let lock = Lock()
            private var registered: Set<String> = []
            private var seen: Set<String> = []

            package override func observe(_ object: StressObject, keyPath: String, options: KeyValueObservingOptions, sink: DeliverySink, call: StressCall) -> ObserveOutcome {
                let answer = inner.observe(object, keyPath: keyPath, options: options, sink: sink, call: call)
                lock.withLock {
                    _ = registered.insert("\(object.id) \(keyPath)")
                    _ = seen.insert("\(object.id) \(keyPath)")
                }
                return answer
            }

            package override func unobserve(_ object: StressObject, keyPath: String, call: StressCall) -> UnobserveOutcome {
                let key = "\(object.id) \(keyPath)"
                guard lock.withLock({ registered.contains(key) }) else {
                    return lock.withLock { seen.contains(key) } ? .alreadyRemoved : .removed
                }
                _ = inner.unobserve(object, keyPath: keyPath, call: call)
                lock.withLock { _ = registered.remove(key) }
                return .removed
            }
        }
    }

    /// The guard behind a wrapper whose unobserve-all takes the controller's lock (one that announces itself to
    /// the scheduler) and returns without releasing it: the next unobserve-all of that controller, on any worker,
    /// waits forever. Each controller has its own lock, so a run abandoned with a lock held leaves nothing held
    /// for the next run (its controllers stay alive, so the lock is never destroyed while held).
    package struct LockLeak: SystemUnderTest {
        package let name = "lock-leak"
        package let promisesGuardSemantics = true

        package init() {}

        package func makeController(
            for observer: StressObserver, retainsObjects: Bool, diagnostics: any DiagnosticSink
        ) -> any StressController {
            Controller(
                inner: ForwardingController.guardController(
                    for: observer, retainsObjects: retainsObjects, diagnostics: diagnostics),
                lock: Lock())
        }

        package final class Controller: ForwardingController, @unchecked Sendable {
            package let lock: Lock
            package init(inner: any StressController, lock: Lock) {
                self.lock = lock
                super.init(inner: inner)
            }
            package override func unobserveAll(call: StressCall) -> Int? {
                lock.lock()
                return inner.unobserveAll(call: call)
                // The early return that never unlocks.
            }
        }
    }

    /// The guard behind a wrapper whose unobserve-all waits on the controller's semaphore, which nobody signals
    /// (a real wait the scheduler cannot see).
    package struct SilentSemaphore: SystemUnderTest {
        package let name = "silent-semaphore"
        package let promisesGuardSemantics = true

        package init() {}

        package func makeController(
            for observer: StressObserver, retainsObjects: Bool, diagnostics: any DiagnosticSink
        ) -> any StressController {
            Controller(
                inner: ForwardingController.guardController(
                    for: observer, retainsObjects: retainsObjects, diagnostics: diagnostics),
                semaphore: DispatchSemaphore(value: 0))
        }

        package final class Controller: ForwardingController, @unchecked Sendable {
            package let semaphore: DispatchSemaphore
            package init(inner: any StressController, semaphore: DispatchSemaphore) {
                self.semaphore = semaphore
                super.init(inner: inner)
            }
            package override func unobserveAll(call: StressCall) -> Int? {
                semaphore.wait()
                return inner.unobserveAll(call: call)
            }
        }
    }

    /// The guard behind a wrapper whose unobserve-all removes object by object in the order of a set of object
    /// identities, which follows memory addresses: the same schedule need not repeat the same run.
    package struct AddressOrdered: SystemUnderTest {
        package let name = "address-ordered"
        package let promisesGuardSemantics = true

        package init() {}

        package func makeController(
            for observer: StressObserver, retainsObjects: Bool, diagnostics: any DiagnosticSink
        ) -> any StressController {
            Controller(
                inner: ForwardingController.guardController(
                    for: observer, retainsObjects: retainsObjects, diagnostics: diagnostics))
        }

        package final class Controller: ForwardingController, @unchecked Sendable {
            private let lock = Lock()
            private var objects: [ObjectIdentifier: WeakBox] = [:]

            package final class WeakBox {
                weak var object: StressObject?
                package init(_ object: StressObject) { self.object = object }
            }

            package override func observe(_ object: StressObject, keyPath: String, options: KeyValueObservingOptions, sink: DeliverySink, call: StressCall) -> ObserveOutcome {
                lock.withLock { objects[ObjectIdentifier(object)] = WeakBox(object) }
                return inner.observe(object, keyPath: keyPath, options: options, sink: sink, call: call)
            }

            package override func unobserveAll(call: StressCall) -> Int? {
                let live = lock.withLock { objects.values.compactMap(\.object) }
                for object in live { _ = inner.unobserve(object, call: call) }
                inner.unobserveAll(call: call)
                return nil
            }
        }
    }

    /// The guard, counting how many threads run a stretch of code without schedule points at the same instant (at
    /// most one under the controlled runner; usually more under the chaos runner).
    package final class OverlapCounter: SystemUnderTest, @unchecked Sendable {
        package let name = "overlap-counter"
        package let promisesGuardSemantics = true
        private let inside = AtomicCell()
        private let most = AtomicCell()

        /// The most threads seen inside a call at the same time.
        package var maximumOverlap: Int { most.word.loadInt(ordering: .relaxed) }

        package init() {}

        package func makeController(
            for observer: StressObserver, retainsObjects: Bool, diagnostics: any DiagnosticSink
        ) -> any StressController {
            Controller(
                inner: ForwardingController.guardController(
                    for: observer, retainsObjects: retainsObjects, diagnostics: diagnostics),
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

        package final class Controller: ForwardingController, @unchecked Sendable {
            package let counter: OverlapCounter
            package init(inner: any StressController, counter: OverlapCounter) {
                self.counter = counter
                super.init(inner: inner)
            }
            package override func observe(_ object: StressObject, keyPath: String, options: KeyValueObservingOptions, sink: DeliverySink, call: StressCall) -> ObserveOutcome {
                counter.measure { inner.observe(object, keyPath: keyPath, options: options, sink: sink, call: call) }
            }
            package override func unobserve(_ object: StressObject, keyPath: String, call: StressCall) -> UnobserveOutcome {
                counter.measure { inner.unobserve(object, keyPath: keyPath, call: call) }
            }
            package override func unobserve(_ object: StressObject, call: StressCall) -> UnobserveOutcome { counter.measure { inner.unobserve(object, call: call) } }
            package override func unobserveAll(call: StressCall) -> Int? { counter.measure { inner.unobserveAll(call: call) } }
        }
    }
}

/// Controlled-run scenarios and settings shared by the tests.
package enum ControlledFixtures {
    /// The controlled runner's default scenario shape with `workers` × `operations`.
    package static func configuration(workers: Int = 4, operations: Int = 25) -> ScenarioConfiguration {
        var configuration = ScenarioConfiguration.controlledDefault
        configuration.workers = workers
        configuration.operationsPerWorker = operations
        return configuration
    }

    /// Settings for `strategy`, with an optional trace.
    package static func settings(_ strategy: StrategyChoice, recordsTrace: Bool = false) -> ControlledRunner.Settings {
        var settings = ControlledRunner.Settings()
        settings.strategy = strategy
        settings.recordsTrace = recordsTrace
        return settings
    }

    /// A scenario with explicit operation texts, one list per worker.
    package static func scenario(_ texts: [[String]], objects: Int = 1, controllers: Int = 1, seed: UInt64 = 1) -> Scenario {
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
    package static func dedupRaceConfiguration() -> ScenarioConfiguration {
        var configuration = ScenarioConfiguration.controlledDefault
        configuration.workers = 2
        configuration.operationsPerWorker = 8
        configuration.objects = 1
        configuration.controllers = 1
        configuration.weakHoldingEvery = 0
        configuration.keys = StressKey.classic
        configuration.mix = .none
        configuration.mix[.observe] = 40
        configuration.mix[.unobserve] = 20
        configuration.mix[.mutate] = 40
        configuration.actions = .nothing
        configuration.actions.none = 1
        return configuration
    }
}
