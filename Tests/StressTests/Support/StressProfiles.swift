import FaultInjector

/// Scenario shapes for the stress tests: FaultInjector's profiles (``ScenarioProfile``), sized so that all stress
/// tests together stay within a few minutes under ThreadSanitizer on two cores.
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
    /// Dotted key paths whose middle object changes (to objects without the leaf key too), and a key depending on one.
    case dotted
    /// Manual notifications, nested, and to-many changes with indexes.
    case manual
    /// Contexts through the forwarding variant, typed key paths (some without a name), weak and unowned keys.
    case variants
    /// Controllers that live the whole round over hundreds of objects that come and go.
    case longLived
    /// `link.gauge` while links change and the lock-backed leaf is set on the middle objects at the same time.
    case dottedLeaf

    /// The FaultInjector profile this one sizes.
    var scenarioProfile: ScenarioProfile {
        switch self {
        case .mixed: return .mixed
        case .initialRace: return .initialRace
        case .teardown: return .teardown
        case .reentrancy: return .reentrancy
        case .removalChurn: return .removalChurn
        case .dotted: return .dotted
        case .manual: return .manual
        case .variants: return .variants
        case .longLived: return .longLived
        case .dottedLeaf: return .dottedLeaf
        }
    }

    /// The configuration of this profile.
    var configuration: ScenarioConfiguration {
        var configuration = scenarioProfile.configuration()
        if self == .longLived {
            configuration.workers = 16
            configuration.operationsPerWorker = 1_500
            configuration.objects = 400
        } else {
            configuration.workers = 32
            configuration.operationsPerWorker = 400
            configuration.objects = 4
            configuration.controllers = 6
        }
        return configuration
    }

    /// Two seeds per profile, fixed so a failure in CI names a reproducible scenario.
    var seeds: [UInt64] {
        let base = UInt64(StressProfile.allCases.firstIndex(of: self)! + 1) * 1_000
        return [base + 1, base + 2]
    }
}
