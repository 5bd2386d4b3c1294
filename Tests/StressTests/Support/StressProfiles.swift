import FaultInjector

/// Scenario shapes for the stress tests, each aimed at one family of races, sized so that all stress tests
/// together stay within a few minutes under ThreadSanitizer on two cores.
enum StressProfile: String, CaseIterable {
    /// The campaign's default mix at a small size.
    case mixed
    /// `.initial` with unobserve / unobserve-all / release-controller inside the initial handler (radar 34307466).
    case initialRace
    /// Releasing observers, controllers and objects while notifications are in flight (FBKVOController #83, #140).
    case teardown
    /// Handlers that re-enter: observe, unobserve and mutate from inside callbacks.
    case reentrancy
    /// Removal churn: double removal and removal of what was never registered, from many queues.
    case removalChurn

    /// The configuration of this profile.
    var configuration: ScenarioConfiguration {
        var configuration = ScenarioConfiguration()
        configuration.workers = 32
        configuration.operationsPerWorker = 400
        configuration.objects = 4
        configuration.controllers = 6
        switch self {
        case .mixed:
            break
        case .initialRace:
            configuration.mix[.observeInitial] = 40
            configuration.mix[.observe] = 5
            configuration.actions = HandlerActionMix()
            configuration.actions.none = 10
            configuration.actions.unobserveSelf = 50
            configuration.actions.unobserveAll = 10
            configuration.actions.releaseController = 10
        case .teardown:
            configuration.weakHoldingEvery = 2
            configuration.mix[.releaseObserver] = 8
            configuration.mix[.releaseController] = 8
            configuration.mix[.releaseObject] = 8
            configuration.mix[.mutate] = 50
        case .reentrancy:
            configuration.actions.none = 10
            configuration.actions.mutate = 30
            configuration.actions.observe = 30
            configuration.actions.unobserveSelf = 20
        case .removalChurn:
            configuration.mix[.unobserve] = 30
            configuration.mix[.doubleUnobserve] = 15
            configuration.mix[.unobserveObject] = 10
            configuration.mix[.unobserveAll] = 5
        }
        return configuration
    }

    /// Two seeds per profile, fixed so a failure in CI names a reproducible scenario.
    var seeds: [UInt64] {
        let base = UInt64(StressProfile.allCases.firstIndex(of: self)! + 1) * 1_000
        return [base + 1, base + 2]
    }
}
