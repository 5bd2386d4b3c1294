/// The settings a text scenario's header lines give, each with the default a scenario that leaves the line out
/// gets: every field a seed file needs but a person should not have to write (tool version, dates, worker counts,
/// operations per worker, slot counts, the operation mix) is made from these and the operations.
struct ScenarioHeader: Equatable {
    /// What objects may call from inside their own deinit (``ScenarioConfiguration/unobservesInDeinit`` and
    /// ``ScenarioConfiguration/observesInDeinit``): through a controller chosen by the object's id.
    enum DeinitCall: String, CaseIterable, Comparable {
        case unobserve
        case unobserveObject = "unobserve-object"
        case observe

        static func < (lhs: DeinitCall, rhs: DeinitCall) -> Bool {
            allCases.firstIndex(of: lhs)! < allCases.firstIndex(of: rhs)!
        }
    }

    /// The system under test.
    var target = "guard"
    /// The scenario seed: it seeds the schedule of controlled runs and the pauses of chaos runs.
    var seed: UInt64 = 1
    /// Object slots (`nil`: one past the highest slot the operations name).
    var objects: Int?
    /// Controller slots (`nil`: one past the highest slot the operations and `weak` name).
    var controllers: Int?
    /// Controller slots that hold their objects weakly.
    var weak: [Int] = []
    /// The keys the scenario is about (`nil`: the keys its operations name). They decide which key an object's own
    /// deinit call names, and whether a link reads `gauge` (only when `link.gauge` is among them).
    var keys: [StressKey]?
    /// Calls objects make in their own deinit.
    var deinitCalls: [DeinitCall] = []
    /// Chaos runs: whether workers pause at random (yields, spins, sleeps).
    var faults = true
    /// Whether an `.initial` + `.new` read of `link` races the object's links (``ScenarioConfiguration/racesInitialValue``).
    var racesInitialValue = true
    /// `controlled` or `chaos`.
    var runner = "controlled"
    /// `pct` or `random` (controlled runs).
    var strategy = ScenarioHeader.defaultStrategy
    /// PCT's depth (`nil`: 3).
    var depth: Int?
    /// PCT's expected counted steps (`nil`: estimated from the scenario's size).
    var expectedSteps: Int?
    /// A controlled run's step limit (`nil`: the runner's default).
    var stepLimit: Int?
    /// One line saying what the scenario shows.
    var description: String?

    /// The strategy of a text scenario that names none.
    static let defaultStrategy = "random"
    /// PCT's depth when none is named.
    static let defaultDepth = 3

    /// Every header keyword with its argument and what it sets, in the order the reference lists them.
    static let keywords: [(keyword: String, argument: String, summary: String)] = [
        ("target", "NAME", "the system under test (default guard)"),
        ("seed", "N", "seeds the schedule (controlled) or the pauses (chaos); default 1"),
        ("objects", "N", "object slots o0 ... (default: one past the highest oN used)"),
        ("controllers", "N", "controller slots c0 ... (default: one past the highest cN used)"),
        ("weak", "cN ...", "controllers that hold their objects weakly (default none)"),
        ("keys", "KEY ...", "keys deinit calls choose from; link.gauge here makes link read gauge (default: the keys used)"),
        ("deinit", "CALL ...", "calls objects make in their own deinit: unobserve, unobserve-object, observe (default none)"),
        ("runner", "controlled|chaos", "how replay runs it (default controlled)"),
        ("strategy", "random|pct", "the controlled runner's strategy (default \(defaultStrategy))"),
        ("depth", "D", "pct's depth, 1 to 100 (default 3)"),
        ("expected-steps", "N", "pct: the steps its change points spread over (default: estimated)"),
        ("step-limit", "N", "the most steps a controlled run may take (default 1000000)"),
        ("faults", "on|off", "chaos runs: injected yields, spins and sleeps (default on)"),
        ("races-initial-value", "yes|no", "an .initial + .new read of link races links (default yes)"),
        ("description", "TEXT", "one line saying what the scenario shows (the rest of the line; # is kept)"),
    ]

    // MARK: What the scenario runs as

    /// The configuration of `operations` under these settings.
    func configuration(for operations: [[Operation]]) -> ScenarioConfiguration {
        let used = Scenario.inferredSlots(operations)
        var configuration = ScenarioConfiguration()
        configuration.workers = operations.count
        configuration.operationsPerWorker = operations.map(\.count).max() ?? 0
        configuration.objects = objects ?? used.objects
        configuration.controllers = controllers ?? max(used.controllers, (weak.max() ?? -1) + 1)
        configuration.weakHoldingEvery = 0
        configuration.weakControllers = weak.isEmpty ? nil : weak.sorted()
        configuration.keys = keys ?? Scenario.inferredKeys(operations)
        var mix = OperationMix.none
        if operations.joined().contains(where: { if case .mutate(_, .gauge) = $0 { return true } else { return false } }) {
            // A set of `gauge` takes the gauge's own lock, as in a drawn scenario.
            mix[.setGauge] = 1
        }
        if deinitCalls.contains(.unobserve) { mix[.unobserve] = 1 }
        if deinitCalls.contains(.unobserveObject) { mix[.unobserveObject] = 1 }
        if mix.weights.allSatisfy({ $0 == 0 }) { mix[.observe] = 1 }
        configuration.mix = mix
        configuration.faults = faults ? FaultProfile() : .none
        configuration.racesInitialValue = racesInitialValue
        configuration.unobservesInDeinit = deinitCalls.contains(.unobserve) || deinitCalls.contains(.unobserveObject)
        configuration.observesInDeinit = deinitCalls.contains(.observe)
        return configuration
    }

    /// The runner these settings name (checked as they were read).
    var runnerChoice: RunnerChoice {
        guard runner == "controlled" else { return .chaos }
        var settings = ControlledRunner.Settings()
        settings.strategy = strategy == "pct" ? .pct(depth: depth ?? Self.defaultDepth) : .random
        settings.expectedSteps = expectedSteps
        if let stepLimit { settings.stepLimit = stepLimit }
        return .controlled(settings)
    }

    // MARK: From a seed file

    /// The settings that run `file`'s operations (`scenario`) as the file runs them; defaults stay unset, so the
    /// text names only what differs.
    init(file: SeedFile, scenario: Scenario) {
        let configuration = scenario.configuration
        target = file.target
        seed = scenario.seed
        let used = Scenario.inferredSlots(scenario.operations)
        weak = (0..<configuration.controllers).filter { configuration.holdsWeakly(controller: $0) }
        if configuration.objects != used.objects { objects = configuration.objects }
        if configuration.controllers != max(used.controllers, (weak.max() ?? -1) + 1) {
            controllers = configuration.controllers
        }
        if configuration.unobservesInDeinit {
            if configuration.mix[.unobserve] > 0 { deinitCalls.append(.unobserve) }
            if configuration.mix[.unobserveObject] > 0 { deinitCalls.append(.unobserveObject) }
        }
        if configuration.observesInDeinit { deinitCalls.append(.observe) }
        let inferred = Scenario.inferredKeys(scenario.operations)
        let keysMatter = !deinitCalls.isEmpty || configuration.keys.contains(.linkGauge) != inferred.contains(.linkGauge)
        if keysMatter, configuration.keys != inferred { keys = configuration.keys }
        runner = file.runner
        if file.isControlled {
            strategy = file.strategy ?? Self.defaultStrategy
            depth = file.depth
            expectedSteps = file.expectedSteps
            stepLimit = file.stepLimit == ControlledRunner.Settings().stepLimit ? nil : file.stepLimit
        } else {
            faults = configuration.faults.isEnabled
        }
        // It decides only how an `.initial` + `.new` read of `link` is judged: said only where one is made.
        let readsLink = scenario.operations.joined().contains { operation in
            guard case .observe(_, _, .link, let options, _) = operation else { return false }
            return options.contains(.initial) && options.contains(.new)
        }
        racesInitialValue = configuration.racesInitialValue || !readsLink
        description = file.description
    }

    /// The header lines that say these settings: only those that differ from the defaults (and `target` always).
    var lines: [String] {
        var lines: [String] = []
        if let description { lines.append("description \(description)") }
        lines.append("target \(target)")
        if seed != 1 { lines.append("seed \(seed)") }
        if runner != "controlled" { lines.append("runner \(runner)") }
        if runner == "controlled" {
            if strategy != Self.defaultStrategy { lines.append("strategy \(strategy)") }
            if let depth, strategy == "pct", depth != Self.defaultDepth { lines.append("depth \(depth)") }
            if let expectedSteps { lines.append("expected-steps \(expectedSteps)") }
            if let stepLimit { lines.append("step-limit \(stepLimit)") }
        } else if !faults {
            lines.append("faults off")
        }
        if let objects { lines.append("objects \(objects)") }
        if let controllers { lines.append("controllers \(controllers)") }
        if !weak.isEmpty { lines.append("weak " + weak.map { "c\($0)" }.joined(separator: " ")) }
        if let keys { lines.append("keys " + keys.map(\.name).joined(separator: " ")) }
        if !deinitCalls.isEmpty { lines.append("deinit " + deinitCalls.map(\.rawValue).joined(separator: " ")) }
        if !racesInitialValue { lines.append("races-initial-value no") }
        return lines
    }

    /// Settings with every default.
    init() {}
}

extension Scenario {
    /// One past the highest controller and object slot `operations` name (at least 1 each).
    static func inferredSlots(_ operations: [[Operation]]) -> (controllers: Int, objects: Int) {
        var controllers = 0
        var objects = 0
        for operation in operations.joined() {
            let used = operation.slotsUsed
            controllers = max(controllers, used.controller + 1)
            objects = max(objects, used.object + 1)
        }
        return (max(1, controllers), max(1, objects))
    }

    /// The keys `operations` name (handler actions included), in ``StressKey``'s order; `k0` when they name none.
    static func inferredKeys(_ operations: [[Operation]]) -> [StressKey] {
        let used = Set(operations.joined().flatMap(\.keysNamed))
        let keys = StressKey.allCases.filter(used.contains)
        return keys.isEmpty ? [.k0] : keys
    }
}

extension Operation {
    /// The string keys the operation names, its handler action's included (a Swift key path counts as the key it is
    /// named by, if any).
    var keysNamed: [StressKey] {
        switch self {
        case .observe(_, _, let key, _, let action), .observeForwarding(_, _, let key, _, _, let action):
            return [key] + action.keysNamed
        case .observeTyped(_, _, let key, _, let action):
            return (key.named.map { [$0] } ?? []) + action.keysNamed
        case .unobserve(_, _, let key), .unobserveContext(_, _, let key, _), .doubleUnobserve(_, _, let key),
            .isObserving(_, _, let key), .mutate(_, let key):
            return [key]
        case .unobserveTyped(_, _, let key):
            return key.named.map { [$0] } ?? []
        case .link: return [.link]
        case .announce(_, let nested): return nested ? [.level, .items] : [.level]
        case .changeItems: return [.items]
        case .unobserveObject, .unobserveAll, .countRegistrations, .observedKeyPaths, .releaseObserver,
            .releaseController, .releaseObject:
            return []
        }
    }
}

extension HandlerAction {
    /// The key the action names, if any.
    var keysNamed: [StressKey] {
        switch self {
        case .mutate(_, let key), .observe(_, let key): return [key]
        case .none, .unobserveSelf, .unobserveAll, .releaseController, .adopt: return []
        }
    }
}
