import GuardCore

/// The process-wide state every run borrows: one run at a time, the misuse policy set to `.report` (so misuse is
/// counted instead of trapping), and the runtime's misuse and registration counters measured around the run.
enum RunEnvironment {
    private static let exclusive = Lock()

    /// Runs `body` while no other run is under way, in a `.report` misuse policy scope (see
    /// `RuntimeMonitor.withMisusePolicy`).
    static func exclusively<Result>(_ body: () -> Result) -> Result {
        exclusive.lock()
        defer { exclusive.unlock() }
        return RuntimeMonitor.withMisusePolicy(.report, body)
    }

    /// The runtime's counters before a run, to measure what the run added.
    struct Baseline {
        private let misuses = RuntimeMonitor.misuseCountsByKind
        private let observances = RuntimeMonitor.liveObservanceCount

        /// The facts after the run's teardown: misuse the run added, registrations it left, and `world`'s survivors.
        func facts(after world: StressWorld) -> RunFacts {
            var facts = RunFacts()
            facts.survivors = world.survivors()
            facts.liveObservancesAfterTeardown = RuntimeMonitor.liveObservanceCount - observances
            let after = RuntimeMonitor.misuseCountsByKind
            for kind in KVOMisuse.Kind.allCases {
                let delta = after[kind, default: 0] - misuses[kind, default: 0]
                if delta > 0 { facts.misuses[kind] = delta }
            }
            return facts
        }
    }
}
