/// What one performed operation did: who, on which concrete instances, when it was called and returned, and
/// what it reported. Nested operations (handler actions) name their parent.
public struct OperationRecord: Sendable {
    /// The kinds of recorded operation (a double unobserve is recorded as two unobserves).
    public enum Kind: UInt8, Sendable, Hashable, CaseIterable {
        // One per ``Operation`` (a double unobserve is two unobserves).
        case observe, unobserve, unobserveObject, unobserveAll, mutate
        case releaseObserver, releaseController, releaseObject
    }

    /// What the operation reported.
    public enum Outcome: UInt8, Sendable, Hashable {
        // `none` for operations without a result; the rest mirror ``ObserveOutcome`` and ``UnobserveOutcome``.
        case none, registered, duplicate, invalid, removed, alreadyRemoved, notRegistered, unknown
        /// The operation was not performed (a handler action the harness skipped to respect its lock order, or an
        /// action whose controller was already gone).
        case skipped
    }

    /// Unique in the run; for observe, also the registration's id.
    public var id: Int
    /// The operation whose handler performed this one, or -1.
    public var parent: Int = -1
    /// The worker whose thread performed it.
    public var worker: Int
    /// Position in the worker's operation list, or -1 for handler actions.
    public var index: Int
    /// What kind of operation it was.
    public var kind: Kind
    /// The concrete controller's id (-1 where none applies).
    public var controller: Int = -1
    /// The concrete observer's id (-1 where none applies).
    public var observer: Int = -1
    /// The concrete object's id (-1 where none applies).
    public var object: Int = -1
    /// The key, for observe, unobserve and mutate.
    public var key: StressKey?
    /// Observe: the options it asked for.
    public var options: StressOptions = []
    /// What the call reported.
    public var outcome: Outcome = .none
    /// When the call began (monotonic nanoseconds).
    public var call: UInt64 = 0
    /// When the call returned (monotonic nanoseconds).
    public var ret: UInt64 = 0
    /// Mutate: the key's value before and after; observe with `.initial` + `.new`: the value the initial
    /// notification must carry (in `newValue`).
    public var oldValue = 0
    /// See `oldValue`.
    public var newValue = 0
    /// Mutate of `k0` / `k1`: `sum` before the change.
    public var oldSum = 0
    /// Mutate of `k0` / `k1`: `sum` right after the store (before handlers run).
    public var newSum = 0
    /// Observe: the action its handler runs.
    public var action: HandlerAction = .none
    /// Release operations: the id of the instance that replaced the released one.
    public var replacement: Int = -1
}

/// One notification as the harness received it.
public struct DeliveryRecord: Sendable {
    /// The registration (its observe operation's id).
    public var registration: Int
    /// The innermost operation running on the delivering thread: the change (a mutate) or, for `.initial`,
    /// the observe itself. -1 if none.
    public var cause: Int
    /// The delivering worker, or -1 for a thread that is not a worker.
    public var worker: Int
    /// Order among everything the worker recorded.
    public var sequence: Int
    /// When the handler ran (monotonic nanoseconds).
    public var time: UInt64
    /// The change kind's raw value (1 is a setting).
    public var kind: UInt8
    /// Whether it was a prior notification.
    public var isPrior: Bool
    /// Whether it carried an old value.
    public var hasOld: Bool
    /// Whether it carried a new value.
    public var hasNew: Bool
    /// The old value (`Int.min` when absent).
    public var oldValue: Int
    /// The new value (`Int.min` when absent).
    public var newValue: Int
    /// The observer the system passed (-1 if it passed none).
    public var observer: Int
    /// The change named the registration's key path.
    public var keyPathMatches: Bool
}
