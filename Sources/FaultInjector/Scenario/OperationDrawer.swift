/// Draws operations for one worker from its generator.
///
/// Each draw takes a controller slot, an object slot and a key (from the configuration's keys) first, then the
/// operation kind by the mix's weights (keyed by ``OperationKind``), then whatever that kind needs. Kinds and keys
/// are drawn in their declaration order, and new ones are appended with weight 0 in older configurations, so a
/// configuration written before they existed draws exactly the operations it drew then.
struct OperationDrawer {
    let configuration: ScenarioConfiguration
    private let kindWeights: [Int]
    private let actionWeights: [Int]
    private let storedKeys: [StressKey]

    init(configuration: ScenarioConfiguration) {
        self.configuration = configuration
        kindWeights = configuration.mix.weights
        actionWeights = configuration.actions.weights
        storedKeys = StressKey.stored + configuration.keys.filter(\.isSpelledApart)
    }

    func draw(count: Int, using generator: inout Xoshiro256StarStar) -> [Operation] {
        (0..<count).map { _ in draw(using: &generator) }
    }

    func draw(using g: inout Xoshiro256StarStar) -> Operation {
        let c = g.next(below: configuration.controllers)
        let o = g.next(below: configuration.objects)
        let key = configuration.keys[g.next(below: configuration.keys.count)]
        let kind = OperationKind.allCases[g.pick(weights: kindWeights)]
        switch kind {
        case .observe:
            return .observe(controller: c, object: o, key: key, options: options(initial: false, &g), action: action(&g))
        case .observeInitial:
            return .observe(controller: c, object: o, key: key, options: options(initial: true, &g), action: action(&g))
        case .unobserve: return .unobserve(controller: c, object: o, key: key)
        case .doubleUnobserve: return .doubleUnobserve(controller: c, object: o, key: key)
        case .unobserveObject: return .unobserveObject(controller: c, object: o)
        case .unobserveAll: return .unobserveAll(controller: c)
        case .mutate: return .mutate(object: o, key: storedKey(&g))
        case .releaseObserver: return .releaseObserver(controller: c)
        case .releaseController: return .releaseController(controller: c)
        case .releaseObject: return .releaseObject(object: o)
        case .observeForwarding:
            let options = options(initial: g.chance(1.0 / 3), &g)
            return .observeForwarding(
                controller: c, object: o, key: key, options: options, context: context(&g), action: action(&g))
        case .unobserveContext:
            return .unobserveContext(controller: c, object: o, key: key, context: context(&g))
        case .observeTyped:
            let typed = typedKey(&g)
            let options = options(initial: g.chance(1.0 / 3), &g)
            return .observeTyped(controller: c, object: o, key: typed, options: options, action: action(&g))
        case .unobserveTyped:
            return .unobserveTyped(controller: c, object: o, key: typedKey(&g))
        case .link:
            return .link(object: o, to: linkTarget(from: o, &g))
        case .announce:
            return .announce(object: o, nested: g.chance(0.5))
        case .changeItems:
            return .changeItems(object: o, change: ItemsChange.allCases[g.next(below: ItemsChange.allCases.count)])
        case .countRegistrations: return .countRegistrations(controller: c)
        case .isObserving: return .isObserving(controller: c, object: o, key: key)
        case .observedKeyPaths: return .observedKeyPaths(controller: c, object: o)
        case .setGauge: return .mutate(object: o, key: .gauge)
        }
    }

    private func options(initial: Bool, _ g: inout Xoshiro256StarStar) -> StressOptions {
        var options: StressOptions = initial ? [.initial] : []
        if g.chance(configuration.optionProbability) { options.insert(.new) }
        if g.chance(configuration.optionProbability) { options.insert(.old) }
        if g.chance(configuration.optionProbability) { options.insert(.prior) }
        return options
    }

    /// The handler action, keyed by its position in ``HandlerActionMix``'s weights.
    private func action(_ g: inout Xoshiro256StarStar) -> HandlerAction {
        switch g.pick(weights: actionWeights) {
        case 0: return .none
        case 1: return .unobserveSelf
        case 2: return .unobserveAll
        case 3: return .releaseController
        case 4: return .mutate(object: g.next(below: configuration.objects), key: storedKey(&g))
        case 5:
            return .observe(
                object: g.next(below: configuration.objects),
                key: configuration.keys[g.next(below: configuration.keys.count)])
        default: return .adopt(object: g.next(below: configuration.objects))
        }
    }

    /// `k0`, `k1`, `k2`, or one of the configuration's keys spelled apart (a configuration without them draws
    /// exactly as before they existed).
    private func storedKey(_ g: inout Xoshiro256StarStar) -> StressKey {
        storedKeys[g.next(below: storedKeys.count)]
    }

    private func typedKey(_ g: inout Xoshiro256StarStar) -> StressTypedKey {
        StressTypedKey.allCases[g.next(below: StressTypedKey.allCases.count)]
    }

    private func context(_ g: inout Xoshiro256StarStar) -> Int {
        1 + g.next(below: OperationWords.contexts)
    }

    /// Another object in a later slot (links never form a cycle) most of the time, else nil or a stranger.
    private func linkTarget(from o: Int, _ g: inout Xoshiro256StarStar) -> LinkTarget {
        let later = configuration.objects - o - 1
        if later > 0, g.chance(0.6) { return .object(o + 1 + g.next(below: later)) }
        return g.chance(0.5) ? .none : .stranger
    }
}
