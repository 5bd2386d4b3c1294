/// Named scenario shapes, each aimed at one family of races or at state that builds up over time; `guard-stress run
/// --profile NAME` picks one.
public enum ScenarioProfile: String, CaseIterable, Sendable {
    /// Every operation, the default mix.
    case mixed
    /// `.initial` with unobserve / unobserve-all / release-controller inside the initial handler (radar 34307466).
    case initialRace = "initial-race"
    /// Releasing observers, controllers and objects while notifications are in flight (FBKVOController #83, #140),
    /// and handlers that adopt an object observed weakly by the same controller.
    case teardown
    /// Handlers that re-enter: observe, unobserve and mutate from inside callbacks.
    case reentrancy
    /// Removal churn: double removal and removal of what was never registered, from many queues.
    case removalChurn = "removal-churn"
    /// Dotted key paths: links replaced, set to nil and to objects without the leaf key, while registrations of
    /// `link.k0` and of `linked` (which depends on it) come and go.
    case dotted
    /// Manual notifications: `level` announced by hand (sometimes around a to-many change) and `items` changed with
    /// indexes.
    case manual
    /// The forwarding variant with contexts, typed key paths (some without a name) and refused keys.
    case variants
    /// Controllers that live the whole round over a thousand objects that come and go: registrations and removal
    /// histories pile up.
    case longLived = "long-lived"
    /// Two controllers over four thousand objects, with steady object churn.
    case crowd
    /// Dotted key paths whose leaf is set while links change: `link.gauge` (a lock-backed leaf announced by hand, set
    /// without the lock a link takes) next to `link.k0` and `linked`, so a link overlaps sets of `gauge` on its old
    /// and new middle objects (a forwarder detached while it relays a prior notification of such a set).
    case dottedLeaf = "dotted-leaf"

    /// One line for `--help`.
    public var summary: String {
        switch self {
        case .mixed: return "every operation, the default mix"
        case .initialRace: return ".initial with unobserve / unobserve-all / release inside the initial handler"
        case .teardown: return "releasing observers, controllers and objects while notifications are in flight"
        case .reentrancy: return "handlers that observe, unobserve and mutate from inside callbacks"
        case .removalChurn: return "double removals and removals of what was never registered"
        case .dotted: return "link.k0 and linked while links change to objects, nil, and objects without k0"
        case .manual: return "willChange/didChange (nested) and to-many insert/remove/replace with indexes"
        case .variants: return "contexts (forwarding variant), typed key paths (some unnamed), weak/unowned keys"
        case .longLived: return "controllers that live all round over 1,000 objects that come and go"
        case .crowd: return "two controllers over 4,096 objects with steady object churn"
        case .dottedLeaf: return "link.gauge while links change and its leaf is set on the middle objects"
        }
    }

    /// The profile's configuration for the chaos runner, or (with `controlled`) sized for the controlled runner.
    public func configuration(controlled: Bool = false) -> ScenarioConfiguration {
        var configuration = controlled ? ScenarioConfiguration.controlledDefault : ScenarioConfiguration()
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
            configuration.actions.adopt = 10
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
            configuration.mix[.unobserveContext] = 10
            configuration.mix[.unobserveTyped] = 8
        case .dotted:
            configuration.keys = [.k0, .link, .linkK0, .linked]
            configuration.mix[.link] = 25
            configuration.mix[.mutate] = 30
            configuration.mix[.announce] = 0
            configuration.mix[.changeItems] = 0
        case .dottedLeaf:
            configuration.keys = [.k0, .link, .linkK0, .linked, .gauge, .linkGauge]
            configuration.mix[.link] = 25
            configuration.mix[.mutate] = 15
            configuration.mix[.setGauge] = 25
            configuration.mix[.announce] = 0
            configuration.mix[.changeItems] = 0
        case .manual:
            configuration.keys = [.k2, .level, .items, .sum]
            configuration.mix[.announce] = 20
            configuration.mix[.changeItems] = 25
            configuration.mix[.link] = 0
        case .variants:
            configuration.mix[.observeForwarding] = 20
            configuration.mix[.unobserveContext] = 12
            configuration.mix[.observeTyped] = 15
            configuration.mix[.unobserveTyped] = 10
        case .longLived, .crowd:
            if !controlled {
                configuration.workers = 32
                configuration.operationsPerWorker = 2_000
            } else {
                configuration.operationsPerWorker = 150
            }
            configuration.objects = self == .longLived ? (controlled ? 64 : 1_000) : (controlled ? 256 : 4_096)
            configuration.controllers = self == .longLived ? 4 : 2
            configuration.weakHoldingEvery = 2
            configuration.mix[.releaseObserver] = 0
            configuration.mix[.releaseController] = 0
            configuration.mix[.unobserveAll] = self == .longLived ? 1 : 0
            configuration.mix[.observe] = 30
            configuration.mix[.releaseObject] = 8
            configuration.actions.releaseController = 0
        }
        return configuration
    }
}
