import GuardCore

/// An observation system the fault injector can hammer: the guard, the raw runtime, a planted-bug variant, or
/// your own wrapper around GuardCore's runtime.
///
/// The harness owns the observers (``StressObserver``) and the objects (``StressObject``); the system under test
/// makes one controller per observer and performs observe / unobserve calls and queries through it.
///
/// To check a type of your own against the same oracle, go through the library: run it with ``ChaosRunner`` or
/// ``ControlledRunner`` (`runAndEvaluate(_:against:)`), in a ``Campaign`` by name with
/// ``Campaign/Settings/makeTarget`` (a ``TargetFactory`` of yours; the child program of isolated rounds serves the same
/// factory with ``RoundServer/serve(makeTarget:)``), and run its seed files once with ``SeedFileRound``, replay them
/// with ``Replayer``, shrink or explain them with FaultInjectorTools' `Shrinker` and `Explainer`, each given the
/// target. `guard-stress` runs only the built-in targets (``TargetCatalog``).
/// If your wrapper serializes with a lock of its own, take it as a ``ScheduledLock`` under the harness: the controlled
/// runner sees only announced locks, and reports a worker blocked on any other lock as blocked outside its control.
/// See <doc:YourOwnSystemUnderTest> for an example.
public protocol SystemUnderTest: Sendable {
    /// A short name for reports and seed files (`guard`, `raw`, ...).
    var name: String { get }
    /// Whether the system promises guard semantics: one registration per (controller, object, key path), exact
    /// results, and no change made after `unobserve` returned delivered to the removed registration. The oracle
    /// checks those promises only then.
    var promisesGuardSemantics: Bool { get }
    /// Whether every absorbed mistake is reported as one diagnostic to the sink its controller was made with, naming
    /// the call site of the call it belongs to (``StressCall``). The oracle checks each one against its call's result
    /// only then. `false` unless a conforming type says otherwise.
    var reportsDiagnostics: Bool { get }
    /// Whether a controller holding objects weakly drops a stress object's registrations before that object's deinit
    /// finishes (GuardCore's runtime does, inside the object's own deinit). The oracle then takes the end of the
    /// deinit as a sure end of such a registration (counts after it must leave it out). `false` unless a conforming
    /// type says otherwise: a system observing stand-ins for the stress objects (twins) drops them when the stand-in
    /// goes, which may be later.
    var dropsWeakRegistrationsInObjectDeinit: Bool { get }
    /// Whether a bulk removal (`unobserveAll()`, `unobserve(object)`, releasing a controller) releases the handlers
    /// of the registrations it takes out in the order the registrations were made, as the guard promises. The oracle
    /// then checks the order in which the harness saw the handlers go (``History/bulkReleases``). `false` unless a
    /// conforming type says otherwise.
    var releasesInRegistrationOrder: Bool { get }
    /// Whether a stress object may remove its own registrations from inside its deinit (mostly through a controller
    /// holding it weakly) and get the answers a live object gets (the guard: a ``KVOObject``'s registrations are its own until
    /// its deinit ends). The harness makes such removals (``ScenarioConfiguration/unobservesInDeinit``) only for a
    /// system that says so; the oracle judges their answers like any other removal's (a weakly held registration
    /// lives until its object's deinit drops it). `false` unless a conforming type says otherwise.
    var answersRemovalsInObjectDeinit: Bool { get }
    /// Whether the system refuses to observe a stress object from inside that object's own deinit (the guard:
    /// `.invalid(.objectDeinitializing)`), instead of registering an object that is going away. The harness makes such
    /// calls (``ScenarioConfiguration/observesInDeinit``) only for a system that says so, and the oracle requires
    /// `.invalid` for each. `false` unless a conforming type says otherwise.
    var refusesObservationInObjectDeinit: Bool { get }
    /// The keys its controllers can observe on a stress object; operations that observe, unobserve or query another
    /// key are skipped (and recorded as skipped). Every key unless a conforming type says otherwise.
    var observableKeys: Set<StressKey> { get }
    /// Makes the controller for `observer`, holding observed objects weakly if `retainsObjects` is `false`. A system
    /// that reports diagnostics sends them to `diagnostics`.
    func makeController(
        for observer: StressObserver, retainsObjects: Bool, diagnostics: any DiagnosticSink
    ) -> any StressController
}

extension SystemUnderTest {
    /// Systems report no diagnostics unless they say so.
    public var reportsDiagnostics: Bool { false }
    /// Systems make no promise about when weakly held registrations go unless they say so.
    public var dropsWeakRegistrationsInObjectDeinit: Bool { false }
    /// Systems make no promise about the order of a bulk removal's releases unless they say so.
    public var releasesInRegistrationOrder: Bool { false }
    /// Objects remove nothing in their deinit unless the system says it answers such removals.
    public var answersRemovalsInObjectDeinit: Bool { false }
    /// Objects ask to be observed in their deinit only of a system that says it refuses that.
    public var refusesObservationInObjectDeinit: Bool { false }
    /// Every key.
    public var observableKeys: Set<StressKey> { Set(StressKey.allCases) }
}

/// The call an operation makes: its id, which a system that reports diagnostics passes on as the call site's line
/// (the guard's `file:line:` parameters), so the oracle can tell which call each diagnostic belongs to.
public struct StressCall: Sendable, Hashable {
    /// The operation's id in the history.
    public let operation: Int

    /// Creates the call of operation `operation`.
    public init(operation: Int) {
        self.operation = operation
    }

    /// The file every harness call site names.
    public static let file = "FaultInjector/operation"

    /// ``file``.
    public var file: String { Self.file }
    /// The operation's id.
    public var line: UInt { UInt(truncatingIfNeeded: operation) }
}

/// One controller of a system under test. Every method may be called from any thread at any time.
///
/// The forwarding, typed and query methods have default implementations (plain observe and unobserve, names
/// resolved by the object, no answers), so a wrapper need only implement what it changes.
public protocol StressController: AnyObject, Sendable {
    /// Observes `keyPath` of `object`; every notification must reach `sink.deliver(...)` synchronously, on the thread
    /// that made the change (or, for `.initial`, the observing thread), or inside ``ChangeOrigin/deliver(_:)`` of the
    /// change's origin when the system delivers it later on another thread (as the guard does with a change held back
    /// until an `.initial` notification; a wrapper around the guard needs to do nothing for that).
    func observe(
        _ object: StressObject, keyPath: String, options: KeyValueObservingOptions, sink: DeliverySink, call: StressCall
    ) -> ObserveOutcome
    /// Observes `keyPath` of `object` with context number `context`, delivering to the observer's own
    /// `observeValue(forKeyPath:of:change:context:)` (the guard's forwarding variant); the observer routes each
    /// notification to `sink` by its context pointer (see ``StressObserver/contextPointer(for:)``).
    func observe(
        _ object: StressObject, keyPath: String, options: KeyValueObservingOptions, context: Int, sink: DeliverySink,
        call: StressCall
    ) -> ObserveOutcome
    /// Observes a Swift key path of `object` (which may have no name).
    func observe(
        _ object: StressObject, typedKey: StressTypedKey, options: KeyValueObservingOptions, sink: DeliverySink,
        call: StressCall
    ) -> ObserveOutcome
    /// Stops observing `keyPath` of `object`.
    func unobserve(_ object: StressObject, keyPath: String, call: StressCall) -> UnobserveOutcome
    /// Stops observing `keyPath` of `object` as registered with context number `context`.
    func unobserve(_ object: StressObject, keyPath: String, context: Int, call: StressCall) -> UnobserveOutcome
    /// Stops observing a Swift key path of `object`.
    func unobserve(_ object: StressObject, typedKey: StressTypedKey, call: StressCall) -> UnobserveOutcome
    /// Stops observing every key path of `object`.
    func unobserve(_ object: StressObject, call: StressCall) -> UnobserveOutcome
    /// Stops observing everything; returns how many registrations it removed, or `nil` if the system does not say.
    @discardableResult
    func unobserveAll(call: StressCall) -> Int?
    /// How many registrations the controller holds, or `nil` if the system does not say.
    func registrationCount() -> Int?
    /// Whether the controller observes `keyPath` of `object`, or `nil` if the system does not say.
    func isObserving(_ object: StressObject, keyPath: String) -> Bool?
    /// The key paths the controller observes on `object`, or `nil` if the system does not say.
    func observedKeyPaths(of object: StressObject) -> [String]?
}

extension StressController {
    /// Observes as a plain observe: the context is not kept.
    public func observe(
        _ object: StressObject, keyPath: String, options: KeyValueObservingOptions, context: Int, sink: DeliverySink,
        call: StressCall
    ) -> ObserveOutcome {
        observe(object, keyPath: keyPath, options: options, sink: sink, call: call)
    }

    /// Observes the key path's name as the object resolves it; `.invalid` if it has none.
    public func observe(
        _ object: StressObject, typedKey: StressTypedKey, options: KeyValueObservingOptions, sink: DeliverySink,
        call: StressCall
    ) -> ObserveOutcome {
        guard let name = typedKey.name(on: object) else { return .invalid }
        return observe(object, keyPath: name, options: options, sink: sink, call: call)
    }

    /// Unobserves as a plain unobserve: the context is not kept.
    public func unobserve(_ object: StressObject, keyPath: String, context: Int, call: StressCall) -> UnobserveOutcome {
        unobserve(object, keyPath: keyPath, call: call)
    }

    /// Unobserves the key path's name as the object resolves it; `.invalid` if it has none.
    public func unobserve(_ object: StressObject, typedKey: StressTypedKey, call: StressCall) -> UnobserveOutcome {
        guard let name = typedKey.name(on: object) else { return .invalid }
        return unobserve(object, keyPath: name, call: call)
    }

    /// No answer.
    public func registrationCount() -> Int? { nil }
    /// No answer.
    public func isObserving(_ object: StressObject, keyPath: String) -> Bool? { nil }
    /// No answer.
    public func observedKeyPaths(of object: StressObject) -> [String]? { nil }
}

/// Receives a system's notifications for one registration and records them for the oracle.
public protocol DeliverySink: AnyObject, Sendable {
    /// One notification. `observer` is the registration's observer as the system passed it (`nil` if the system
    /// delivered although the observer is gone).
    func deliver(observer: StressObserver?, object: StressObject, change: KeyValueChange)
}

/// What an observe call reported.
public enum ObserveOutcome: UInt8, Sendable, Codable {
    /// A new registration was made.
    case registered
    /// The registration existed already; nothing changed.
    case duplicate
    /// The arguments were rejected; nothing changed.
    case invalid
    /// The system gives no result (raw KVO).
    case unknown
}

/// What an unobserve call reported.
public enum UnobserveOutcome: UInt8, Sendable, Codable {
    /// A registration was removed.
    case removed
    /// Nothing to remove: it was removed before.
    case alreadyRemoved
    /// Nothing to remove: it never existed.
    case notRegistered
    /// The arguments were rejected.
    case invalid
    /// The system gives no result (raw KVO).
    case unknown
}
