/// What ``ObservationController`` did with an `observe` call.
public enum ObserveResult: Sendable, Hashable {
    /// A new registration was made.
    case registered
    /// The controller already observes that object for that key path; nothing changed and a
    /// ``GuardDiagnostic/Kind/duplicateObservation`` event was emitted.
    case duplicate
    /// The arguments were invalid; nothing was registered and a ``GuardDiagnostic/Kind/invalidArgument`` event was
    /// emitted.
    case invalid(GuardDiagnostic.InvalidArgument)
}

/// What ``ObservationController`` did with an `unobserve` call.
public enum UnobserveResult: Sendable, Hashable {
    /// A registration was removed (for `unobserve(_:)`, at least one).
    case removed
    /// Nothing to remove: it was never registered. A ``GuardDiagnostic/Kind/removalOfUnregistered`` event was
    /// emitted.
    case notRegistered
    /// Nothing to remove: it was removed before. A ``GuardDiagnostic/Kind/doubleRemoval`` event was emitted.
    case alreadyRemoved
    /// The arguments were invalid; a ``GuardDiagnostic/Kind/invalidArgument`` event was emitted.
    case invalid(GuardDiagnostic.InvalidArgument)
}
