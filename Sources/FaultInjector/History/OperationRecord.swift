import GuardCore

/// What one performed operation did: who, on which concrete instances, when it was called and returned, and
/// what it reported. Nested operations (handler actions) name their parent.
public struct OperationRecord: Sendable {
    /// The kinds of recorded operation. Observe and unobserve in every variant (plain, with a context, typed) are
    /// `observe` and `unobserve` (the record's `context` and `typedKey` tell them apart); a double unobserve is two
    /// unobserves; a nested announce records its inner to-many change as a child.
    public enum Kind: UInt8, Sendable, Hashable, CaseIterable {
        case observe, unobserve, unobserveObject, unobserveAll, mutate
        case releaseObserver, releaseController, releaseObject
        /// Set an object's middle object.
        case link
        /// A change of `level` announced by hand.
        case announce
        /// An insertion, removal or replacement of `items` elements.
        case changeItems
        /// A handler took an object out of its slot (``HandlerAction/adopt(object:)``).
        case adoptObject
        /// `registrationCount` (the answer is in `answer`).
        case countRegistrations
        /// `isObserving` (the answer, 0 or 1, is in `answer`).
        case isObserving
        /// `observedKeyPaths` (the answer is in `answer`: a set of ``StressKey`` bits).
        case observedKeyPaths

        /// Whether the operation changes a value observers may hear about.
        public var isChange: Bool {
            self == .mutate || self == .link || self == .announce || self == .changeItems
        }

        /// Whether the operation may remove registrations.
        public var isRemoval: Bool {
            self == .unobserve || self == .unobserveObject || self == .unobserveAll
        }
    }

    /// What the operation reported.
    public enum Outcome: UInt8, Sendable, Hashable {
        // `none` for operations without a result; the rest mirror ``ObserveOutcome`` and ``UnobserveOutcome``.
        case none, registered, duplicate, invalid, removed, alreadyRemoved, notRegistered, unknown
        /// The operation was not performed (a handler action the harness skipped to respect its lock order, or an
        /// action whose controller was already gone, or a to-many change with nothing to change).
        case skipped
        /// A query answered (its answer is in `answer`).
        case answered
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
    /// Observe and unobserve: the concrete object's address while the call ran, as a diagnostic names it (0 where
    /// none applies or it was not recorded).
    public var objectAddress: UInt = 0
    /// The key, for observe, unobserve, mutate, link (`link`), announce (`level`), to-many changes (`items`) and
    /// `isObserving`. A typed observe or unobserve whose key path has no name has none.
    public var key: StressKey?
    /// Observe and unobserve through a context: its number (0 for none).
    public var context = 0
    /// Typed observe and unobserve: the Swift key path.
    public var typedKey: StressTypedKey?
    /// Observe: the options it asked for.
    public var options: StressOptions = []
    /// What the call reported.
    public var outcome: Outcome = .none
    /// When the call began (monotonic nanoseconds).
    public var call: UInt64 = 0
    /// When the call returned (monotonic nanoseconds).
    public var ret: UInt64 = 0
    /// Changes: the key's value before and after (for `items`: the removed or replaced elements, and the inserted or
    /// replacing ones, as ``StressValue`` fingerprints; for `link`: the old and new middle object's ids, or
    /// ``StressValue/nilValue``); observe with `.initial` + `.new`: the value the initial notification must carry
    /// (in `newValue`).
    public var oldValue = 0
    /// See `oldValue`.
    public var newValue = 0
    /// Mutate of `k0` / `k1`: `sum` before the change.
    public var oldSum = 0
    /// Mutate of `k0` / `k1`: `sum` right after the store (before handlers run).
    public var newSum = 0
    /// Link: `link.k0` before and after (``StressValue/nilValue`` when the middle object is nil or has no `k0`).
    public var oldLeaf = StressValue.nilValue
    /// See `oldLeaf`.
    public var newLeaf = StressValue.nilValue
    /// Link: `link.gauge` before and after (``StressValue/nilValue`` when the middle object is nil or has no `gauge`),
    /// read once the link's call began without the middle objects' `gauge` locks, so a set of `gauge` on either middle
    /// object overlapping the link may have changed it (the oracle then does not judge those values); left
    /// ``StressValue/nilValue`` in a scenario that does not observe `link.gauge`.
    public var oldGauge = StressValue.nilValue
    /// See `oldGauge`.
    public var newGauge = StressValue.nilValue
    /// Changes: the change kind's raw value (1 setting, 2 insertion, 3 removal, 4 replacement).
    public var changeKind: UInt8 = 1
    /// To-many changes: the changed positions as bits.
    public var indexMask: UInt64 = 0
    /// Queries: the answer; unobserve-all: how many registrations it removed; -1 when the system does not say.
    public var answer = -1
    /// Observe: the action its handler runs.
    public var action: HandlerAction = .none
    /// Release operations: the id of the instance that replaced the released one.
    public var replacement: Int = -1
    /// Unobserve: the object removed its own registrations from inside its deinit (a nested operation of the
    /// operation that dropped the last reference to it; ``ScenarioConfiguration/unobservesInDeinit``).
    public var inObjectDeinit = false
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
    /// The changed positions of a to-many change, as bits (0 for a setting).
    public var indexMask: UInt64 = 0
    /// The object the system passed to the handler (its id; -1 if not recorded).
    public var object: Int = -1
}

/// One diagnostic the system under test reported (for systems that report them), with the operation it names.
public struct DiagnosticRecord: Sendable {
    /// What kind of mistake.
    public var kind: GuardDiagnostic.Kind
    /// For an invalid argument, why.
    public var reason: GuardDiagnostic.InvalidArgument?
    /// The key path the event names, if any.
    public var keyPath: String?
    /// The operation its call site names (``StressCall``), or -1 for a call site that is not the harness's.
    public var operation: Int
    /// The worker whose thread reported it, or -1.
    public var worker: Int
    /// When it was reported.
    public var time: UInt64
    /// The address of the object the event names, if it names one.
    public var objectAddress: UInt? = nil
    /// The observer's type the event names (`nil`: not recorded).
    public var observerType: String? = nil
    /// The object's type the event names, if it names an object.
    public var objectType: String? = nil
    /// Whether the thread the event names is the thread that reported it.
    public var namesReportingThread = true
}
