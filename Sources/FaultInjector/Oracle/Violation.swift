/// One way a run broke the oracle, with a readable explanation.
public struct Violation: Sendable, Hashable, Codable {
    /// The oracle's rules, one kind each.
    public enum Kind: String, Sendable, Hashable, Codable, CaseIterable, Comparable {
        /// A misuse reached the runtime (the process would have crashed under Foundation).
        case runtimeMisuse = "runtime-misuse"
        /// Observe / unobserve results cannot be explained by any order of the calls.
        case nonLinearizable = "non-linearizable"
        /// A registration that was live for the whole change did not hear about it.
        case missingDelivery = "missing-delivery"
        /// A registration heard about one change twice.
        case duplicateDelivery = "duplicate-delivery"
        /// A change made after the registration was surely gone (or before it existed) was delivered to it.
        case deliveryOutsideRegistration = "delivery-outside-registration"
        /// A notification reached a registration that never existed (a duplicate's handler, another key, ...).
        case unexpectedDelivery = "unexpected-delivery"
        /// A notification named another observer, or none, or came after its observer was gone.
        case misroutedDelivery = "misrouted-delivery"
        /// `.initial` was not delivered exactly once inside its observe call.
        case initialNotExactlyOnce = "initial-not-exactly-once"
        /// A registration made with `.initial` heard about a change (or its prior notification) before its initial
        /// notification.
        case changeBeforeInitial = "change-before-initial"
        /// Once an observe with `.initial` + `.new` and every change of its key that overlapped it had returned, the
        /// last value its handler had heard was not the key's value.
        case staleLastValue = "stale-last-value"
        /// A prior notification was missing, duplicated, came after its change, or was not followed by its change.
        case priorOrder = "prior-order"
        /// A notification carried the wrong kind, old or new value, or missing / extra values.
        case valueMismatch = "value-mismatch"
        /// A call reported a result that valid arguments never produce (or did not refuse arguments it must refuse).
        case unexpectedResult = "unexpected-result"
        /// A diagnostic was missing, extra, of the wrong kind, or named the wrong key path or call site.
        case diagnosticMismatch = "diagnostic-mismatch"
        /// A bulk removal released a registration before one made earlier than it (``ReleaseOrderChecks``).
        case releaseOrder = "release-order"
        /// A value sequence (`values(of:bufferingNewest:)`) broke one of its promises (``StreamChecks``).
        case valueStream = "value-stream"
        /// User code (a handler, a diagnostic sink, an observer's deinit) ran while the system held one of its locks.
        case calledUnderLock = "called-under-lock"
        /// Workers stopped making progress (or a round's process stopped answering and was killed).
        case deadlock
        /// The process running the round died of a signal other than a trap (`crash(SIGSEGV)`), was ended by a
        /// sanitizer it was built with (`crash(ThreadSanitizer)`, `crash(AddressSanitizer)`), or exited without
        /// finishing the round. Seen only when rounds run in child processes.
        case crash
        /// The process running the round trapped: a Swift runtime trap (`fatalError`, `precondition`, a force
        /// unwrap of `nil`, an index out of range, an overflow), which ends with SIGILL or SIGTRAP. Seen only when
        /// rounds run in child processes.
        case trap
        /// A controlled run did not finish within its step limit (a livelock, or a scenario too long for it).
        case stepLimit = "step-limit"
        /// Something released was still alive at the end, or the runtime's tables were not empty.
        case leak

        /// Orders kinds by their names.
        public static func < (lhs: Kind, rhs: Kind) -> Bool { lhs.rawValue < rhs.rawValue }
    }

    /// The signals a Swift runtime trap ends with (SIGILL on x86-64, SIGTRAP on arm64): a process killed by one of
    /// them is a ``Kind/trap``, by any other a ``Kind/crash``.
    public static let trapSignals: Set<String> = ["SIGILL", "SIGTRAP"]

    /// Which rule was broken.
    public let kind: Kind
    /// What happened, naming the operations involved.
    public let message: String

    /// Creates a violation.
    public init(_ kind: Kind, _ message: String) {
        self.kind = kind
        self.message = message
    }
}
