import GuardCore

/// What a run left behind that its history does not show: misuse the runtime counted, instances that survived
/// the teardown, registrations the runtime still holds, and why the run stopped early if it did.
public struct RunFacts: Sendable {
    /// Misuses the runtime counted during the run and its teardown.
    public var misuses: [KVOMisuse.Kind: Int] = [:]
    /// Instances still alive after everything was released, by kind.
    public var survivors: [String: Int] = [:]
    /// Runtime registrations still present after everything was released.
    public var liveObservancesAfterTeardown = 0
    /// Notifications that reached an observer's own `observeValue` with a context no registration was made with.
    public var unroutedNotifications = 0
    /// User code (a handler, a diagnostic sink, an observer's deinit) that the system called while holding one of its
    /// locks, one line each; only a controlled run can tell (see ``ControlledRunner``).
    public var userCodeUnderLock: [String] = []
    /// Set when workers were blocked for good (a deadlock, a self-deadlock, a worker blocked outside the
    /// scheduler's control, or no progress for the chaos runner's timeout): who was blocked where. The run was
    /// abandoned and its history is incomplete.
    public var deadlock: String?
    /// A controlled run's step limit (`nil` for the chaos runner, which has none).
    public var stepLimit: Int?
    /// Set when a controlled run did not finish within its step limit (a livelock, or a scenario too long for the
    /// limit). The rest of the run went on without control, so the history is complete.
    public var stepLimitExceeded: String?

    /// No misuse, no survivors, no deadlock.
    public init() {}
}
