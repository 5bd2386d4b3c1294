import GuardCore

/// Fills GuardCore's process-wide caches (per-class tables, key names, computed keys, dependent keys) before the
/// first run, by performing every kind of operation on every key against the guard and the raw runtime on the calling
/// thread.
///
/// A cold cache takes extra locks on first use, so without this the first controlled run in a process would take
/// other schedule steps than the same run later in the process (or in a replaying process). And learning that a
/// computed key exists reads it (and naming a typed key path may read the object), which would race with a worker's
/// change of the values it reads. Worker threads are new for every run, so per-thread caches start empty every time.
///
/// GuardCore's bounded per-class caches start over when anything in the process fills them (a model answering
/// arbitrary keys, GuardCore's own tests), dropping what the warm-up put there; the next run would then miss and take
/// the cache locks again, and the same run after it would not. So the warm-up is done again before a run whenever
/// they started over since (``RuntimeCacheEvictions``), and repeated if they started over during it.
///
/// Refused keys (`owner`), typed key paths that cannot be named and adopting handlers are left out: the
/// runtime needs no cache for them, and (run against an older GuardCore, to show that a seed file fails there) they
/// would crash or hang the warm-up instead of the run that exercises them.
enum RuntimeWarmUp {
    /// Runs the warm-up unless it ran before and GuardCore's bounded caches kept everything since. Call inside
    /// ``RunEnvironment/exclusively(_:)`` (misuse is reported, not trapped) before taking the run's misuse baseline.
    static func ensure() {
        // A pass that made the caches start over dropped what it put there before: one more pass puts it back (the
        // warm-up's own entries are far fewer than a cache holds, so that pass keeps them all).
        for _ in 0..<maximumPasses {
            let evictions = RuntimeCacheEvictions.count
            guard warmedAt.current != evictions else { return }
            warmUp()
            if RuntimeCacheEvictions.count == evictions {
                _ = warmedAt.exchange(evictions)
                return
            }
        }
    }

    /// ``RuntimeCacheEvictions/count`` after the last warm-up that left every entry it made in place; `nil` before
    /// the first.
    private static let warmedAt = Protected<UInt64?>(nil)

    /// Passes ``ensure()`` makes at most: two always suffice unless something else fills the caches meanwhile.
    private static let maximumPasses = 3

    /// The warm-up's operations, for one worker on three objects and two controllers (the second holds weakly).
    static var operations: [Operation] {
        var operations: [Operation] = []
        let keys = StressKey.allCases.filter { !$0.isRefused }
        let typedKeys = StressTypedKey.allCases.filter { $0.named != nil || $0 == .sum }
        for c in 0..<2 {
            for key in keys {
                operations.append(.observe(controller: c, object: 0, key: key, options: [.initial, .new, .old, .prior], action: .none))
                operations.append(
                    .observeForwarding(controller: c, object: 1, key: key, options: [.new], context: 1, action: .none))
                operations.append(.isObserving(controller: c, object: 0, key: key))
            }
            for typed in typedKeys {
                operations.append(.observeTyped(controller: c, object: 2, key: typed, options: [.initial, .new], action: .none))
                operations.append(.unobserveTyped(controller: c, object: 2, key: typed))
            }
            operations += [
                .link(object: 0, to: .object(1)), .mutate(object: 1, key: .k0), .mutate(object: 0, key: .k0),
                .mutate(object: 1, key: .gauge), .mutate(object: 0, key: .gauge),
                .mutate(object: 0, key: .k1), .mutate(object: 0, key: .k2), .announce(object: 0, nested: true),
                .announce(object: 0, nested: false), .changeItems(object: 0, change: .insert),
                .changeItems(object: 0, change: .replace), .changeItems(object: 0, change: .remove),
                .link(object: 0, to: .stranger), .link(object: 0, to: .none), .link(object: 1, to: .object(2)),
            ]
            operations += StressKey.spelledApart.map { .mutate(object: 0, key: $0) }
            operations += [
                .countRegistrations(controller: c), .observedKeyPaths(controller: c, object: 0),
                .unobserve(controller: c, object: 0, key: .k0),
                .unobserveContext(controller: c, object: 1, key: .k0, context: 1),
                .doubleUnobserve(controller: c, object: 0, key: .k1), .unobserveObject(controller: c, object: 0),
                .unobserveAll(controller: c),
            ]
        }
        operations += [
            .releaseObject(object: 0), .releaseController(controller: 1), .releaseObserver(controller: 0),
        ]
        return operations
    }

    /// Performs ``operations`` against the guard and the raw runtime on the calling thread.
    private static func warmUp() {
        var configuration = ScenarioConfiguration()
        configuration.workers = 1
        configuration.objects = 3
        configuration.controllers = 2
        configuration.weakHoldingEvery = 2
        configuration.faults = .none
        let targets: [any SystemUnderTest] = [GuardTarget(diagnostics: CountingSink(keepsEvents: false)), RawRuntimeTarget()]
        let previous = WorkerContext.current
        for target in targets {
            let world = StressWorld(configuration: configuration, target: target, clock: .logical())
            let worker = WorkerContext(index: 0, faults: FaultInjection(profile: .none, seed: 0, worker: 0))
            WorkerContext.setCurrent(worker)
            for (index, operation) in operations.enumerated() {
                world.perform(operation, index: index, worker: worker)
            }
            WorkerContext.setCurrent(previous)
            world.releaseEverything()
        }
    }
}
