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
/// Refused keys (`delegate`, `owner`), typed key paths that cannot be named and adopting handlers are left out: the
/// runtime needs no cache for them, and (run against a GuardCore from before issue 7's fixes, to show a seed file
/// fails there) they would crash or hang the warm-up instead of the run that exercises them.
enum RuntimeWarmUp {
    /// Runs the warm-up once per process. Call inside ``RunEnvironment/exclusively(_:)`` (misuse is reported, not
    /// trapped) before taking the run's misuse baseline.
    static func ensure() {
        _ = done
    }

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

    private static let done: Void = {
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
    }()
}
