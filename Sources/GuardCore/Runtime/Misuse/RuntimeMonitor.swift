import Foundation

/// Watches GuardCore's runtime from outside: the process-wide misuse policy, the misuses counted and recorded, and
/// how many observances exist. It is not the runtime itself (that is ``KVOObject`` and its observation tables).
///
/// Everything here is thread-safe. The misuse policy is process-wide by design (like Foundation's exceptions);
/// tests that change it should restore it, for example with ``withMisusePolicy(_:_:)``.
public enum RuntimeMonitor {
    /// How many reported misuses are kept for ``reportedMisuses``; older ones are dropped (they stay counted).
    public static let reportedMisuseLimit = 10_000

    private struct MisuseState {
        var policy: MisusePolicy = .trap
        var countsByKind: [KVOMisuse.Kind: Int] = [:]
        var total = 0
        var recent: [KVOMisuse] = []
    }

    private static let state = Protected(MisuseState())
    private static let liveObservances = AtomicCell()

    /// What happens on misuse: ``MisusePolicy/trap`` (the default), ``MisusePolicy/report`` or ``MisusePolicy/log``.
    public static var misusePolicy: MisusePolicy {
        get { state.withValue { $0.policy } }
        set { state.withValue { $0.policy = newValue } }
    }

    /// Runs `body` with `policy` in force and restores the previous policy afterwards.
    public static func withMisusePolicy<Result>(
        _ policy: MisusePolicy, _ body: () throws -> Result
    ) rethrows -> Result {
        let previous = state.withValue { state -> MisusePolicy in
            let previous = state.policy
            state.policy = policy
            return previous
        }
        defer { misusePolicy = previous }
        return try body()
    }

    /// How many misuses happened since launch or the last ``resetMisuseRecords()``, under any policy.
    public static var misuseCount: Int {
        state.withValue { $0.total }
    }

    /// How many misuses of `kind` happened since launch or the last ``resetMisuseRecords()``.
    public static func misuseCount(of kind: KVOMisuse.Kind) -> Int {
        state.withValue { $0.countsByKind[kind, default: 0] }
    }

    /// Misuse counts by kind since launch or the last ``resetMisuseRecords()``; kinds that never happened are absent.
    public static var misuseCountsByKind: [KVOMisuse.Kind: Int] {
        state.withValue { $0.countsByKind }
    }

    /// The most recent misuses (up to ``reportedMisuseLimit``), oldest first, recorded under every policy but trap.
    public static var reportedMisuses: [KVOMisuse] {
        state.withValue { $0.recent }
    }

    /// Forgets all recorded misuses and zeroes the counters; the policy is unchanged.
    public static func resetMisuseRecords() {
        state.withValue { state in
            state.countsByKind = [:]
            state.total = 0
            state.recent = []
        }
    }

    /// How many registrations (observances) exist on live objects right now, across the process. Zero means every
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
            fatalError(misuse.description)
        case .report:
            break
        case .log:
            StandardError.write("KVOGuard runtime misuse: " + misuse.description + "\n")
        }
    }
}
