/// The planted bugs: deliberately broken observation systems that prove the harness can see.
/// Each is the ``BaselineController`` with one documented variation (a file of its own in
/// `PlantedBugs/`); ``PlantedBugTarget`` runs one behind ``SystemUnderTest``. They live in FaultInjector, never in
/// the shipped GuardCore library. `guard-stress mutants` runs each against both runners and prints the kill matrix.
public enum PlantedBug: String, CaseIterable, Sendable {
    /// ``DedupRemovedController``.
    case dedupRemoved = "bug-dedup-removed"
    /// ``UnregisteredRemovalForwardedController``.
    case unregisteredRemovalForwarded = "bug-unregistered-removal-forwarded"
    /// ``LockMissingController``.
    case lockMissing = "bug-lock-missing"
    /// ``HandlerCalledUnderLockController``.
    case handlerUnderLock = "bug-handler-under-lock"
    /// ``InitialStateMissingController``.
    case initialStateMissing = "bug-initial-state-missing"
    /// ``DeliveryCheckRemovedController``.
    case deliveryCheckRemoved = "bug-delivery-check-removed"
    /// ``NotifyIteratesLiveStorageController``.
    case notifyLiveStorage = "bug-notify-live-storage"
    /// ``WeakObjectsNotDroppedController``.
    case weakObjectsNotDropped = "bug-weak-objects-not-dropped"
    /// ``DescriptionKeyedSingletonController``.
    case descriptionSingleton = "bug-description-singleton"
    /// ``EarlyReturnKeepsLockController``.
    case earlyReturnKeepsLock = "bug-early-return-keeps-lock"
    /// ``InitialValueReadEarlyController``.
    case initialReadEarly = "bug-initial-read-early"
    /// ``ChangeBeforeInitialController``.
    case changeBeforeInitial = "bug-change-before-initial"

    /// The name of the unmodified baseline (accepted by ``TargetCatalog/make(_:diagnostics:)``, never listed): it
    /// must keep the oracle.
    public static let baselineName = "planted-baseline"

    /// What is broken, in one line.
    public var summary: String {
        switch self {
        case .dedupRemoved: return "dedup removed: a second observe registers again"
        case .unregisteredRemovalForwarded: return "removal of the unregistered forwarded to the runtime"
        case .lockMissing: return "the lock missing from the single-key unobserve"
        case .handlerUnderLock: return "the handler called while the lock is held"
        case .initialStateMissing: return "the .initial pending/cancelled handling missing"
        case .deliveryCheckRemoved: return "the delivery-time state check removed"
        case .notifyLiveStorage: return "notify walks live storage instead of a snapshot"
        case .weakObjectsNotDropped: return "weakly held objects not dropped on deinit"
        case .descriptionSingleton: return "singleton keyed by the object's description (race 5)"
        case .earlyReturnKeepsLock: return "an early return that never releases the lock"
        case .initialReadEarly: return "the .initial value read before the registration exists"
        case .changeBeforeInitial: return "a change racing the .initial delivered before it"
        }
    }

    /// The oracle's checks that should see it (at least one of them fires when it is caught).
    public var expectedKinds: Set<Violation.Kind> {
        switch self {
        case .dedupRemoved: return [.nonLinearizable, .duplicateDelivery]
        case .unregisteredRemovalForwarded: return [.runtimeMisuse]
        case .lockMissing: return [.runtimeMisuse, .nonLinearizable, .crash, .trap]
        case .handlerUnderLock: return [.calledUnderLock, .deadlock]
        case .earlyReturnKeepsLock: return [.deadlock]
        case .initialStateMissing: return [.runtimeMisuse]
        case .deliveryCheckRemoved: return [.deliveryOutsideRegistration]
        case .notifyLiveStorage: return [.duplicateDelivery]
        case .weakObjectsNotDropped: return [.runtimeMisuse]
        case .descriptionSingleton: return [.nonLinearizable, .missingDelivery, .misroutedDelivery]
        case .initialReadEarly: return [.missingDelivery, .staleLastValue]
        case .changeBeforeInitial: return [.changeBeforeInitial, .staleLastValue]
        }
    }

    /// The scenario every planted bug starts from, and the one the guard runs in the kill matrix: the classic keys
    /// and operations (a wrapper over the runtime's public API has nothing more to show). `controlled` sizes it for
    /// the controlled runner (4 workers × 25 operations), otherwise for a short chaos round (16 queues × 200
    /// operations with injected pauses).
    public static func commonConfiguration(controlled: Bool) -> ScenarioConfiguration {
        var configuration = ScenarioConfiguration.controlledDefault
        if !controlled {
            configuration.workers = 16
            configuration.operationsPerWorker = 200
            configuration.faults = FaultProfile()
        }
        configuration.keys = StressKey.classic
        configuration.mix = .classic
        configuration.actions.adopt = 0
        return configuration
    }

    /// The scenario it runs on: ``commonConfiguration(controlled:)`` with the weights that give its flaw a chance.
    public func configuration(controlled: Bool) -> ScenarioConfiguration {
        var configuration = Self.commonConfiguration(controlled: controlled)
        switch self {
        case .initialStateMissing, .deliveryCheckRemoved:
            configuration.mix[.observeInitial] = 40
            configuration.actions.none = 10
            configuration.actions.unobserveSelf = 50
        case .weakObjectsNotDropped:
            configuration.weakHoldingEvery = 1
            configuration.mix[.releaseObject] = 10
        case .initialReadEarly, .changeBeforeInitial:
            // One object's `gauge`, observed with `.initial` (its value is a raced read: sets of `gauge` take no lock
            // the observe holds) through six controllers, so a set that overlaps an observe was surely announced to
            // another registration; removals free the registrations again, and handlers do nothing (an unobserve in
            // the initial handler would end the registration before the set it missed, or dropped the change held
            // for it).
            configuration.objects = 1
            configuration.controllers = 6
            configuration.keys = [.gauge]
            configuration.mix = .none
            configuration.mix[.observeInitial] = 60
            configuration.mix[.unobserve] = 30
            configuration.mix[.doubleUnobserve] = 3
            configuration.mix[.unobserveObject] = 3
            configuration.mix[.unobserveAll] = 2
            configuration.mix[.setGauge] = 20
            configuration.actions = .nothing
            configuration.optionProbability = 0.75
        default:
            break
        }
        return configuration
    }

    /// A fresh controller of this planted bug.
    func makeController(for observer: StressObserver, retainsObjects: Bool, table: PlantedTable) -> BaselineController {
        let type: BaselineController.Type
        switch self {
        case .dedupRemoved: type = DedupRemovedController.self
        case .unregisteredRemovalForwarded: type = UnregisteredRemovalForwardedController.self
        case .lockMissing: type = LockMissingController.self
        case .handlerUnderLock: type = HandlerCalledUnderLockController.self
        case .initialStateMissing: type = InitialStateMissingController.self
        case .deliveryCheckRemoved: type = DeliveryCheckRemovedController.self
        case .notifyLiveStorage: type = NotifyIteratesLiveStorageController.self
        case .weakObjectsNotDropped: type = WeakObjectsNotDroppedController.self
        case .descriptionSingleton: type = DescriptionKeyedSingletonController.self
        case .earlyReturnKeepsLock: type = EarlyReturnKeepsLockController.self
        case .initialReadEarly: type = InitialValueReadEarlyController.self
        case .changeBeforeInitial: type = ChangeBeforeInitialController.self
        }
        return type.init(observer: observer, retainsObjects: retainsObjects, table: table)
    }

    /// Whether all of its controllers share one table (the singleton).
    var sharesOneTable: Bool { self == .descriptionSingleton }
}
