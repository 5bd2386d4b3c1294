/// The kinds of operation a worker draws, by the name its weight has in an ``OperationMix`` (and in seed files and
/// `guard-stress run --mix`).
///
/// The declaration order is the drawing order and must never change: new kinds are appended, so a configuration
/// written before they existed (which has no weight for them, read as 0) draws exactly what it drew before.
public enum OperationKind: String, CaseIterable, Codable, Sendable {
    /// Observe with a handler, without `.initial`.
    case observe
    /// Observe with a handler and `.initial`.
    case observeInitial
    /// Unobserve one key path.
    case unobserve
    /// Unobserve one key path twice in a row.
    case doubleUnobserve
    /// Unobserve every key path of an object.
    case unobserveObject
    /// Unobserve everything of a controller.
    case unobserveAll
    /// Set a stored key.
    case mutate
    /// Replace a slot's observer (and its controller).
    case releaseObserver
    /// Replace a slot's controller.
    case releaseController
    /// Replace a slot's object.
    case releaseObject
    /// Observe through the forwarding variant with a context number.
    case observeForwarding
    /// Unobserve a key path naming a context number.
    case unobserveContext
    /// Observe a Swift key path (some cannot be named).
    case observeTyped
    /// Unobserve a Swift key path.
    case unobserveTyped
    /// Set an object's middle object (`link`) to another object, nil, or an object without the leaf key.
    case link
    /// Announce a change of `level` by hand, sometimes with a to-many change nested inside.
    case announce
    /// Insert, remove or replace elements of `items` with indexes.
    case changeItems
    /// Ask a controller for its registration count.
    case countRegistrations
    /// Ask a controller whether it observes a key path of an object.
    case isObserving
    /// Ask a controller for the key paths it observes on an object.
    case observedKeyPaths
    /// Set an object's `gauge` (a key kept behind a lock, announced by hand), holding only that key's lock: drawn as a
    /// mutate of `gauge`, it may overlap links of the objects that link to this one.
    case setGauge

    /// The kinds an older configuration can have weights for (the ten before the widened scenarios).
    static let classic: [OperationKind] = Array(allCases.prefix(10))
}
