import Foundation

/// Watches GuardCore's runtime from outside: the process-wide misuse policy, the misuses counted and recorded, and
/// how many observances exist. It is not the runtime itself (that is ``KVOObject`` and its observation tables).
///
/// Everything here is thread-safe. The misuse policy is process-wide by design (like Foundation's exceptions);
/// tests that change it should restore it, best with ``withMisusePolicy(_:_:)``, whose scopes compose across threads.
public enum RuntimeMonitor {
    /// How many reported misuses are kept for ``reportedMisuses``; older ones are dropped (they stay counted).
    public static let reportedMisuseLimit = 10_000

    private struct MisuseState {
        /// The policy in force while no ``withMisusePolicy(_:_:)`` scope is open.
        var processPolicy: MisusePolicy = .trap
        /// The open ``withMisusePolicy(_:_:)`` scopes, oldest first, on every thread: each one's id and policy.
        var scopes: [(id: UInt64, policy: MisusePolicy)] = []
        var nextScopeID: UInt64 = 0
        var countsByKind: [KVOMisuse.Kind: Int] = [:]
        var total = 0
        var recent: [KVOMisuse] = []

        /// The policy in force: the newest open scope's, or the process policy when no scope is open. Setting it
        /// changes the newest open scope's policy (for the rest of that scope), or the process policy.
        var policy: MisusePolicy {
            get { scopes.last?.policy ?? processPolicy }
            set {
                if scopes.isEmpty {
                    processPolicy = newValue
                } else {
                    scopes[scopes.count - 1].policy = newValue
                }
            }
        }
    }

    private static let state = Protected(MisuseState())
    private static let liveObservances = AtomicCell()

    /// What happens on misuse: ``MisusePolicy/trap`` (the default), ``MisusePolicy/report`` or ``MisusePolicy/log``.
    ///
    /// While ``withMisusePolicy(_:_:)`` scopes are open (on any thread), this is the newest open scope's policy, and
    /// setting it changes that scope's policy until the scope ends; otherwise it is the process-wide policy.
    public static var misusePolicy: MisusePolicy {
        get { state.read { $0.policy } }
        set { state.withValue { $0.policy = newValue } }
    }

    /// Runs `body` with `policy` in force, process-wide, and ends that when `body` returns or throws.
    ///
    /// Scopes nest and overlap, on one thread or several, as a stack that any scope may leave: the policy in force is
    /// always the one of the newest scope still open, and once no scope is open it is again the process-wide policy
    /// as it was before the first of them began. So `policy` is in force for the whole of `body` unless another
    /// scope begins meanwhile (its policy then takes over until it ends) or ``misusePolicy`` is set meanwhile (which
    /// changes the newest open scope's policy). When two threads' scopes overlap (A begins, B begins, A ends, B ends),
    /// B's policy stays in force until B ends, and the process-wide policy is back after both.
    public static func withMisusePolicy<Result>(
        _ policy: MisusePolicy, _ body: () throws -> Result
    ) rethrows -> Result {
        let id = state.withValue { state -> UInt64 in
            let id = state.nextScopeID
            state.nextScopeID &+= 1
            state.scopes.append((id, policy))
            return id
        }
        defer {
            state.withValue { state in
                if let index = state.scopes.lastIndex(where: { $0.id == id }) { state.scopes.remove(at: index) }
            }
        }
        return try body()
    }

    /// How many misuses happened since launch or the last ``resetMisuseRecords()``, under any policy.
    public static var misuseCount: Int {
        state.read { $0.total }
    }

    /// How many misuses of `kind` happened since launch or the last ``resetMisuseRecords()``.
    public static func misuseCount(of kind: KVOMisuse.Kind) -> Int {
        state.read { $0.countsByKind[kind, default: 0] }
    }

    /// Misuse counts by kind since launch or the last ``resetMisuseRecords()``; kinds that never happened are absent.
    public static var misuseCountsByKind: [KVOMisuse.Kind: Int] {
        state.read { $0.countsByKind }
    }

    /// The most recent misuses (up to ``reportedMisuseLimit``), oldest first, recorded under every policy but trap.
    public static var reportedMisuses: [KVOMisuse] {
        state.read { $0.recent }
    }

    /// Forgets all recorded misuses and zeroes the counters; the policy is unchanged.
    public static func resetMisuseRecords() {
        state.withValue { state in
            state.countsByKind = [:]
            state.total = 0
            state.recent = []
        }
    }

    /// Whether GuardCore's key-value coding can read stored properties in this process: `true` wherever the Swift
    /// runtime has its reflection entry points (every non-Apple platform, however the runtime is linked; iOS 13.4,
    /// macOS 10.15.4, tvOS 13.4, watchOS 6.2 and later). Where it is `false`, no stored or ``Observed`` property is a
    /// key: the process says so once on standard error, and a key a ``KVOObject`` cannot answer is the misuse
    /// ``KVOMisuse/Kind/reflectionUnavailable``.
    public static var canReadStoredProperties: Bool {
        ReflectionUnavailableNotice.isReflectionAvailable
    }

    /// How many observances (observances) exist on live objects right now, across the process. Zero means every
    /// runtime table is empty.
    public static var liveObservanceCount: Int {
        liveObservances.word.loadInt(ordering: .relaxed)
    }

    static func observanceAdded() {
        liveObservances.word.add(1, ordering: .relaxed)
    }

    static func observancesRemoved(_ count: Int) {
        guard count > 0 else { return }
        liveObservances.word.add(-count, ordering: .relaxed)
    }

    /// Hands `misuse` to the policy: counts it, then traps, records, or logs.
    static func handle(_ misuse: KVOMisuse) {
        let policy = state.withValue { state -> MisusePolicy in
            state.total += 1
            state.countsByKind[misuse.kind, default: 0] += 1
            if state.policy != .trap {
                if state.recent.count == reportedMisuseLimit { state.recent.removeFirst(reportedMisuseLimit / 10) }
                state.recent.append(misuse)
            }
            return state.policy
        }
        switch policy {
        case .trap:
            fatalError(misuse.terminationMessage)
        case .report:
            break
        case .log:
            StandardError.writeWithoutWaiting("KVOGuard runtime misuse: " + misuse.description + "\n")
        }
    }
}
