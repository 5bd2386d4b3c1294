import GuardCore

/// The system under test that KVOGuard ships: an ``ObservationController`` per observer.
public struct GuardTarget: SystemUnderTest {
    /// `guard`.
    public let name = "guard"
    /// The guard promises exact results, linearizability and nothing delivered after removal.
    public let promisesGuardSemantics = true
    /// Where the controllers' diagnostics go (a counting sink in the harness).
    public let diagnostics: any DiagnosticSink

    /// Creates the target; diagnostics of every controller go to `diagnostics`.
    public init(diagnostics: any DiagnosticSink) {
        self.diagnostics = diagnostics
    }

    /// An ``ObservationController`` for `observer`, wrapped for the harness.
    public func makeController(for observer: StressObserver, retainsObjects: Bool) -> any StressController {
        GuardStressController(
            ObservationController(
                observer: observer, retainsObservedObjects: retainsObjects, diagnosticSink: diagnostics))
    }
}

/// Adapts an ``ObservationController`` to ``StressController``.
final class GuardStressController: StressController, @unchecked Sendable {
    private let controller: ObservationController<StressObserver>

    init(_ controller: ObservationController<StressObserver>) {
        self.controller = controller
    }

    func observe(
        _ object: StressObject, keyPath: String, options: KeyValueObservingOptions, sink: DeliverySink
    ) -> ObserveOutcome {
        ObserveOutcome(
            controller.observe(object, keyPath: keyPath, options: options) { observer, object, change in
                sink.deliver(observer: observer, object: object, change: change)
            })
    }

    func unobserve(_ object: StressObject, keyPath: String) -> UnobserveOutcome {
        UnobserveOutcome(controller.unobserve(object, keyPath: keyPath))
    }

    func unobserve(_ object: StressObject) -> UnobserveOutcome {
        UnobserveOutcome(controller.unobserve(object))
    }

    func unobserveAll() {
        controller.unobserveAll()
    }
}

extension ObserveOutcome {
    /// The harness outcome for a guard result (for wrappers around ``ObservationController``).
    public init(_ result: ObserveResult) {
        switch result {
        case .registered: self = .registered
        case .duplicate: self = .duplicate
        case .invalid: self = .invalid
        }
    }
}

extension UnobserveOutcome {
    /// The harness outcome for a guard result (for wrappers around ``ObservationController``).
    public init(_ result: UnobserveResult) {
        switch result {
        case .removed: self = .removed
        case .alreadyRemoved: self = .alreadyRemoved
        case .notRegistered: self = .notRegistered
        case .invalid: self = .invalid
        }
    }
}
