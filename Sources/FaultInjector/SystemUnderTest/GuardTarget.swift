import GuardCore

/// The system under test that KVOGuard ships: an ``ObservationController`` per observer.
public struct GuardTarget: SystemUnderTest {
    /// `guard`.
    public let name = "guard"
    /// The guard promises exact results, linearizability and nothing delivered after removal.
    public let promisesGuardSemantics = true
    /// Every absorbed mistake is one diagnostic naming the call site.
    public let reportsDiagnostics = true
    /// Where the controllers' diagnostics go as well (a counting sink in the campaign).
    public let diagnostics: any DiagnosticSink
    /// The backend behind every controller; `nil` for the controller's default (``AutomaticBackend``).
    public let backend: (any KeyValueObservingBackend)?
    /// With the default backend, GuardCore's runtime drops a weakly held object's registrations inside its deinit; a
    /// backend of the caller's may learn of the deinit later, so nothing is promised then.
    public var dropsWeakRegistrationsInObjectDeinit: Bool { backend == nil }
    /// A ``KVOObject``'s registrations are its own until its deinit ends, whatever the backend (the guard recognizes
    /// the object by its observation table).
    public let answersRemovalsInObjectDeinit = true
    /// The guard refuses to observe an object that is running its deinit (`.invalid(.objectDeinitializing)`).
    public let refusesObservationInObjectDeinit = true
    /// A bulk removal unregisters and releases its registrations in the order they were made.
    public let releasesInRegistrationOrder = true

    /// Creates the target; diagnostics of every controller also go to `diagnostics`. A `backend` (for example one
    /// that audits the guard's calls) stands behind every controller instead of the default.
    public init(diagnostics: any DiagnosticSink, backend: (any KeyValueObservingBackend)? = nil) {
        self.diagnostics = diagnostics
        self.backend = backend
    }

    /// An ``ObservationController`` for `observer`, wrapped for the harness; its diagnostics go to both the run's
    /// `diagnostics` and the target's own sink.
    public func makeController(
        for observer: StressObserver, retainsObjects: Bool, diagnostics runDiagnostics: any DiagnosticSink
    ) -> any StressController {
        GuardStressController(
            ObservationController(
                observer: observer, retainsObservedObjects: retainsObjects, backend: backend ?? AutomaticBackend(),
                diagnosticSink: BothSinks(first: runDiagnostics, second: diagnostics)))
    }
}

/// Sends every event to two sinks.
private struct BothSinks: DiagnosticSink {
    let first: any DiagnosticSink
    let second: any DiagnosticSink

    func record(_ event: GuardDiagnostic) {
        first.record(event)
        second.record(event)
    }
}

/// Adapts an ``ObservationController`` to ``StressController``: every call passes the operation as its call site.
final class GuardStressController: StressController, @unchecked Sendable {
    private let controller: ObservationController<StressObserver>

    init(_ controller: ObservationController<StressObserver>) {
        self.controller = controller
    }

    func observe(
        _ object: StressObject, keyPath: String, options: KeyValueObservingOptions, sink: DeliverySink, call: StressCall
    ) -> ObserveOutcome {
        ObserveOutcome(
            controller.observe(object, keyPath: keyPath, options: options, file: call.file, line: call.line) {
                observer, object, change in
                sink.deliver(observer: observer, object: object, change: change)
            })
    }

    /// The forwarding variant: notifications reach the observer's `observeValue` with a context that routes them to
    /// `sink`. (With the observer gone there is nothing to route to; the guard answers `.invalid` then.)
    func observe(
        _ object: StressObject, keyPath: String, options: KeyValueObservingOptions, context: Int, sink: DeliverySink,
        call: StressCall
    ) -> ObserveOutcome {
        let pointer = controller.observer?.routingContext(to: sink)
        return ObserveOutcome(
            controller.observe(
                object, keyPath: keyPath, options: options, context: pointer, file: call.file, line: call.line))
    }

    func observe(
        _ object: StressObject, typedKey: StressTypedKey, options: KeyValueObservingOptions, sink: DeliverySink,
        call: StressCall
    ) -> ObserveOutcome {
        let handler: @Sendable (StressObserver, StressObject, KeyValueChange) -> Void = { observer, object, change in
            sink.deliver(observer: observer, object: object, change: change)
        }
        let (file, line) = (call.file, call.line)
        let result: ObserveResult
        switch typedKey {
        case .k0:
            result = controller.observe(object, \.k0, options: options, file: file, line: line) { handler($0, $1, $2.change) }
        case .k1:
            result = controller.observe(object, \.k1, options: options, file: file, line: line) { handler($0, $1, $2.change) }
        case .k2:
            result = controller.observe(object, \.k2, options: options, file: file, line: line) { handler($0, $1, $2.change) }
        case .sum:
            result = controller.observe(object, \.sum, options: options, file: file, line: line) { handler($0, $1, $2.change) }
        case .peerForced:
            result = controller.observe(object, \.peer!.k0, options: options, file: file, line: line) {
                handler($0, $1, $2.change)
            }
        case .peerOptional:
            result = controller.observe(object, \.peer?.k0, options: options, file: file, line: line) {
                handler($0, $1, $2.change)
            }
        }
        return ObserveOutcome(result)
    }

    func unobserve(_ object: StressObject, keyPath: String, call: StressCall) -> UnobserveOutcome {
        UnobserveOutcome(controller.unobserve(object, keyPath: keyPath, file: call.file, line: call.line))
    }

    /// The guard has one registration per key path, whatever its context: this is a plain unobserve.
    func unobserve(_ object: StressObject, keyPath: String, context: Int, call: StressCall) -> UnobserveOutcome {
        unobserve(object, keyPath: keyPath, call: call)
    }

    func unobserve(_ object: StressObject, typedKey: StressTypedKey, call: StressCall) -> UnobserveOutcome {
        let (file, line) = (call.file, call.line)
        let result: UnobserveResult
        switch typedKey {
        case .k0: result = controller.unobserve(object, \.k0, file: file, line: line)
        case .k1: result = controller.unobserve(object, \.k1, file: file, line: line)
        case .k2: result = controller.unobserve(object, \.k2, file: file, line: line)
        case .sum: result = controller.unobserve(object, \.sum, file: file, line: line)
        case .peerForced: result = controller.unobserve(object, \.peer!.k0, file: file, line: line)
        case .peerOptional: result = controller.unobserve(object, \.peer?.k0, file: file, line: line)
        }
        return UnobserveOutcome(result)
    }

    func unobserve(_ object: StressObject, call: StressCall) -> UnobserveOutcome {
        UnobserveOutcome(controller.unobserve(object, file: call.file, line: call.line))
    }

    func unobserveAll(call: StressCall) -> Int? {
        controller.unobserveAll()
    }

    func registrationCount() -> Int? {
        controller.registrationCount
    }

    func isObserving(_ object: StressObject, keyPath: String) -> Bool? {
        controller.isObserving(object, keyPath: keyPath)
    }

    func observedKeyPaths(of object: StressObject) -> [String]? {
        controller.observedKeyPaths(of: object)
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
