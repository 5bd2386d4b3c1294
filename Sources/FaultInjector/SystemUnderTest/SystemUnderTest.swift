import GuardCore

/// An observation system the fault injector can hammer: the guard, the raw runtime, a planted-bug variant, or
/// your own wrapper around GuardCore's runtime.
///
/// The harness owns the observers (``StressObserver``) and the objects (``StressObject``); the system under test
/// makes one controller per observer and performs observe / unobserve calls through it. Conform a type of your
/// own and pass it to ``ChaosRunner`` (or `guard-stress`) to check it against the same oracle.
public protocol SystemUnderTest: Sendable {
    /// A short name for reports and seed files (`guard`, `raw`, ...).
    var name: String { get }
    /// Whether the system promises guard semantics: one registration per (controller, object, key path),
    /// exact results, and no change made after `unobserve` returned delivered to the removed registration. The oracle checks those promises only then.
    var promisesGuardSemantics: Bool { get }
    /// Makes the controller for `observer`, holding observed objects weakly if `retainsObjects` is `false`.
    func makeController(for observer: StressObserver, retainsObjects: Bool) -> any StressController
}

/// One controller of a system under test. Every method may be called from any thread at any time.
public protocol StressController: AnyObject, Sendable {
    /// Observes `keyPath` of `object`; every notification must reach `sink.deliver(...)` synchronously.
    func observe(
        _ object: StressObject, keyPath: String, options: KeyValueObservingOptions, sink: DeliverySink
    ) -> ObserveOutcome
    /// Stops observing `keyPath` of `object`.
    func unobserve(_ object: StressObject, keyPath: String) -> UnobserveOutcome
    /// Stops observing every key path of `object`.
    func unobserve(_ object: StressObject) -> UnobserveOutcome
    /// Stops observing everything.
    func unobserveAll()
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
