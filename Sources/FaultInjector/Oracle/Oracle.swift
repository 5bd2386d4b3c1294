import GuardCore

/// Checks a recorded run against the guard's promises: no misuse reaches the runtime; observe /
/// unobserve results and the answers of `isObserving` and `observedKeyPaths` are linearizable per (controller, object)
/// (every key path, and the object as a whole); `unobserveAll()`'s count and `registrationCount` lie between the
/// registrations surely and possibly live during the call; each change reaches each live registration exactly once
/// (through a stable link too), with the right kind, values and indexes; no change made after `unobserve` returned is
/// delivered to the removed registration (a removal nested in the observe, or one ordered after it, ends it too);
/// a change that began after the `.initial` notification is delivered; never a gone observer; `.initial` exactly
/// once, before any change, and once the observe and the changes overlapping it returned, the last value heard is the
/// key's (``InitialFirstChecks``); prior before its change (late joiners included), and every prior followed by its
/// change; a bulk removal releases its registrations in the order they were made; every value sequence keeps its
/// promises (order, the newest values kept within its limit, its end); refused arguments are `.invalid`; every
/// diagnostic matches its call's result; no
/// deadlock; a controlled run ends within its step limit; no handler, diagnostic sink or observer deinit runs under a
/// lock of the system (controlled runs); nothing leaked, neither after the teardown nor (for objects nothing could
/// still hold, ``ReleasedObjectChecks``) while the controllers lived.
///
/// It judges a ``RunRecording`` after the run, never during it: runners only execute and record.
///
/// Rules that only the guard promises (exact results, linearizability, nothing delivered after removal) are
/// checked only for systems that promise guard semantics, and diagnostics only for systems that report them.
public struct Oracle: Sendable {
    /// How many calls of user code under a lock a verdict names one by one.
    static let userCodeUnderLockExamples = 5

    /// Whether to check the guard-only promises.
    public let checksGuardSemantics: Bool
    /// Whether to check every diagnostic against its call's result.
    public let checksDiagnostics: Bool
    /// Whether (with guard semantics) a weakly held registration surely ended when its object finished
    /// deinitializing (``History/objectDeinitTimes``).
    public let endsWeakRegistrationsAtObjectDeinit: Bool
    /// Whether a bulk removal must release its registrations in the order they were made (``ReleaseOrderChecks``).
    public let checksReleaseOrder: Bool

    /// Creates an oracle.
    public init(
        checksGuardSemantics: Bool, checksDiagnostics: Bool = false, endsWeakRegistrationsAtObjectDeinit: Bool = false,
        checksReleaseOrder: Bool = false
    ) {
        self.checksGuardSemantics = checksGuardSemantics
        self.checksDiagnostics = checksDiagnostics
        self.endsWeakRegistrationsAtObjectDeinit = endsWeakRegistrationsAtObjectDeinit
        self.checksReleaseOrder = checksReleaseOrder
    }

    /// The oracle for `recording`'s system under test (guard semantics checked if it promises them, diagnostics if
    /// it reports them, weak registrations ended by their object's deinit if it drops them there, the order of a
    /// bulk removal's releases if it promises it).
    public init(for recording: RunRecording) {
        self.init(
            checksGuardSemantics: recording.promisesGuardSemantics,
            checksDiagnostics: recording.promisesGuardSemantics && recording.reportsDiagnostics,
            endsWeakRegistrationsAtObjectDeinit: recording.dropsWeakRegistrationsInObjectDeinit,
            checksReleaseOrder: recording.releasesInRegistrationOrder)
    }

    /// The verdict on a run: its history and facts judged, with the run's numbers.
    public func evaluate(_ recording: RunRecording) -> Verdict {
        var verdict = evaluate(recording.history, facts: recording.facts)
        verdict.takeNumbers(of: recording)
        return verdict
    }

    /// The verdict on `history` and `facts` (its numbers zero: a history alone does not carry them).
    public func evaluate(_ history: History, facts: RunFacts) -> Verdict {
        var verdict = Verdict()
        verdict.count("no runtime misuse")
        for (kind, count) in facts.misuses.sorted(by: { $0.key.rawValue < $1.key.rawValue }) where count > 0 {
            verdict.runtimeMisuses[kind] = count
            verdict.add(.init(.runtimeMisuse, "\(count) × \(kind.rawValue) reached the runtime"))
        }
        verdict.count("no deadlock")
        if let deadlock = facts.deadlock {
            verdict.add(.init(.deadlock, deadlock))
        }
        if facts.stepLimit != nil { verdict.count("finished within the step limit") }
        if let stepLimit = facts.stepLimitExceeded {
            verdict.add(.init(.stepLimit, stepLimit))
        }
        verdict.count("nothing leaked")
        for (kind, count) in facts.survivors.sorted(by: { $0.key < $1.key }) {
            verdict.add(.init(.leak, "\(count) released \(kind)\(count == 1 ? " is" : "s are") still alive"))
        }
        if facts.liveObservancesAfterTeardown != 0 {
            verdict.add(.init(.leak, "the runtime still holds \(facts.liveObservancesAfterTeardown) registrations"))
        }
        if facts.unroutedNotifications != 0 {
            verdict.add(.init(
                .misroutedDelivery,
                "\(facts.unroutedNotifications) notifications reached an observer's observeValue with a context no "
                    + "registration was made with"))
        }
        if facts.stepLimit != nil { verdict.count("user code never called under the system's locks") }
        for call in facts.userCodeUnderLock.prefix(Self.userCodeUnderLockExamples) {
            verdict.add(.init(.calledUnderLock, call))
        }
        if facts.userCodeUnderLock.count > Self.userCodeUnderLockExamples {
            verdict.add(.init(
                .calledUnderLock,
                "\(facts.userCodeUnderLock.count - Self.userCodeUnderLockExamples) more calls of user code under the "
                    + "system's locks"))
        }
        guard facts.deadlock == nil else { return verdict }
        let index = HistoryIndex(
            history, guardSemantics: checksGuardSemantics,
            endsWeakRegistrationsAtObjectDeinit: endsWeakRegistrationsAtObjectDeinit)
        DeliveryChecks(index: index, history: history).run(into: &verdict)
        InitialValueChecks(index: index, history: history, guardSemantics: checksGuardSemantics).run(into: &verdict)
        ReleasedObjectChecks(index: index, history: history, guardSemantics: checksGuardSemantics).run(into: &verdict)
        if checksGuardSemantics {
            InitialFirstChecks(index: index, history: history).run(into: &verdict)
            ResultChecks(index: index).run(into: &verdict)
            LinearizabilityChecks(index: index).run(into: &verdict)
            RegistrationCountChecks(index: index).run(into: &verdict)
        }
        if checksDiagnostics {
            DiagnosticChecks(index: index, history: history).run(into: &verdict)
        }
        if checksReleaseOrder {
            ReleaseOrderChecks(index: index, history: history).run(into: &verdict)
        }
        StreamChecks(index: index, history: history).run(into: &verdict)
        return verdict
    }
}
