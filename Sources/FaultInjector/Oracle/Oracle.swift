import GuardCore

/// Checks a recorded run against the rules of DESIGN.md section 4: no misuse reaches the runtime; observe /
/// unobserve results are linearizable per (controller, object, key path); each change reaches each live
/// registration exactly once; no change made after `unobserve` returned is delivered to the removed registration;
/// never a gone observer; `.initial` exactly once; prior before its change; old and new consistent; no deadlock; a
/// controlled run ends within its step limit; nothing leaked.
///
/// It judges a ``RunRecording`` after the run, never during it: runners only execute and record.
///
/// Rules that only the guard promises (exact results, linearizability, nothing delivered after removal) are
/// checked only for systems that promise guard semantics.
public struct Oracle: Sendable {
    /// Whether to check the guard-only promises.
    public let checksGuardSemantics: Bool

    /// Creates an oracle.
    public init(checksGuardSemantics: Bool) {
        self.checksGuardSemantics = checksGuardSemantics
    }

    /// The oracle for `recording`'s system under test (guard semantics checked if it promises them).
    public init(for recording: RunRecording) {
        self.init(checksGuardSemantics: recording.promisesGuardSemantics)
    }

    /// The verdict on a run's history and facts.
    public func evaluate(_ recording: RunRecording) -> OracleReport {
        evaluate(recording.history, facts: recording.facts)
    }

    /// The verdict on `history` and `facts`.
    public func evaluate(_ history: History, facts: RunFacts) -> OracleReport {
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
        if facts.stepLimit != nil { report.count("finished within the step limit") }
        if let stepLimit = facts.stepLimitExceeded {
            report.add(.init(.stepLimit, stepLimit))
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
