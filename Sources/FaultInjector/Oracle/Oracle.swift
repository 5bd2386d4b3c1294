import GuardCore

/// Checks a recorded run against the rules of DESIGN.md section 4: no misuse reaches the runtime; observe /
/// unobserve results are linearizable per (controller, object, key path); each change reaches each live
/// registration exactly once; no change made after `unobserve` returned is delivered to the removed registration;
/// never a gone observer; `.initial` exactly once;
/// prior before its change; old and new consistent; no deadlock; nothing leaked.
///
/// Rules that only the guard promises (exact results, linearizability, nothing delivered after removal) are
/// checked only for systems that promise guard semantics.
public struct Oracle: Sendable {
    /// What the run left behind that the history does not show.
    public struct Facts: Sendable {
        /// Misuses the runtime counted during the run and its teardown.
        public var misuses: [KVOMisuse.Kind: Int] = [:]
        /// Instances still alive after everything was released, by kind.
        public var survivors: [String: Int] = [:]
        /// Runtime registrations still present after everything was released.
        public var liveObservancesAfterTeardown = 0
        /// Set when workers stopped making progress: what they were doing.
        public var deadlock: String?

        /// No misuse, no survivors, no deadlock.
        public init() {}
    }

    /// Whether to check the guard-only promises.
    public let checksGuardSemantics: Bool

    /// Creates an oracle.
    public init(checksGuardSemantics: Bool) {
        self.checksGuardSemantics = checksGuardSemantics
    }

    /// The verdict on `history` and `facts`.
    public func evaluate(_ history: History, facts: Facts) -> OracleReport {
        var report = OracleReport()
        report.count("no runtime misuse")
        for (kind, count) in facts.misuses.sorted(by: { $0.key.rawValue < $1.key.rawValue }) where count > 0 {
            report.runtimeMisuses[kind] = count
            report.add(.init(.runtimeMisuse, "\(count) × \(kind.rawValue) reached the runtime"))
        }
        report.count("no deadlock")
        if let deadlock = facts.deadlock {
            report.add(.init(.deadlock, deadlock))
        }
        report.count("nothing leaked")
        for (kind, count) in facts.survivors.sorted(by: { $0.key < $1.key }) {
            report.add(.init(.leak, "\(count) released \(kind)\(count == 1 ? " is" : "s are") still alive"))
        }
        if facts.liveObservancesAfterTeardown != 0 {
            report.add(.init(.leak, "the runtime still holds \(facts.liveObservancesAfterTeardown) registrations"))
        }
        guard facts.deadlock == nil else { return report }
        let index = HistoryIndex(history, guardSemantics: checksGuardSemantics)
        DeliveryChecks(index: index, history: history).run(into: &report)
        if checksGuardSemantics {
            LinearizabilityChecks(index: index).run(into: &report)
        }
        return report
    }
}
