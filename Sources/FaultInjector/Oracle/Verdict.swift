import GuardCore

/// The verdict on a run: what the oracle checked, how often, and every violation it found (the first few of each
/// kind in full, all of them counted), with the run's numbers (operations, deliveries, steps, seconds). It is the one
/// outcome of a run that everything after the oracle keeps.
///
/// ```swift
/// let recording = ChaosRunner().run(scenario, against: RawRuntimeTarget())
/// let verdict = Oracle(for: recording).evaluate(recording)
/// if !verdict.passed { print(verdict.signature, verdict.violations.first?.message ?? "") }
/// ```
///
/// The ``Oracle`` makes it from a ``RunRecording``; a ``RunResult`` pairs the two while the
/// recording is still wanted (replay, explain). A ``Campaign`` keeps one per round and merges them into
/// ``CampaignSummary/verdict``; a ``Replayer`` keeps one per run. A round run in a child process sends its verdict
/// back as JSON (it is `Codable`); a round whose process crashed, trapped or stopped answering gets one that says so
/// (``init(processEnd:log:seconds:note:)``, ``init(unresponsiveFor:silentFor:log:note:)``).
public struct Verdict: Sendable, Codable {
    // MARK: What the oracle found

    /// How many individual checks of each rule were made.
    public private(set) var checks: [String: Int] = [:]
    /// Violations kept in full: the first ``keptPerKind`` of each kind.
    public private(set) var violations: [Violation] = []
    /// Every violation counted by kind.
    public private(set) var violationCounts: [Violation.Kind: Int] = [:]
    /// Misuse kinds that reached the runtime, with counts.
    public internal(set) var runtimeMisuses: [KVOMisuse.Kind: Int] = [:]
    /// Keys whose linearizability search hit its budget and was neither confirmed nor refuted.
    public internal(set) var inconclusiveKeys = 0
    /// The signals that ended processes under test (`SIGSEGV`, `SIGILL`, ...; `exit 3` for a process that exited
    /// without answering; the sanitizer's name, `ThreadSanitizer`, for one a sanitizer ended), with counts: filled
    /// only for rounds isolated in child processes.
    public internal(set) var crashSignals: [String: Int] = [:]

    // MARK: The run's numbers

    /// Operations performed, handler actions included (0 for a round whose process died: unknown).
    public var operations = 0
    /// Notifications received.
    public var deliveries = 0
    /// Pauses injected (chaos runner).
    public var faultsInjected = 0
    /// Schedule steps taken (controlled runner).
    public var steps = 0
    /// Decisions at which more than one worker could run (controlled runner; PCT learns from it).
    public var choiceSteps: Int?
    /// Whether a controlled run hit its step limit.
    public var hitStepLimit = false
    /// Wall-clock seconds the workers ran (for a round whose process died: how long the parent waited).
    public var seconds = 0.0
    /// True when workers were blocked for good and abandoned (their threads are still blocked in that process).
    public var abandoned = false
    /// Mistakes the guard absorbed during the run, by kind (empty for targets without diagnostics, and for runs
    /// whose diagnostics nobody counted).
    public var preventedMisuses: [GuardDiagnostic.Kind: Int] = [:]

    /// How many violations of each kind are kept in full.
    public static let keptPerKind = 5

    /// An empty verdict: nothing checked, nothing found, the numbers zero.
    public init() {}

    /// Sets the run's numbers (operations, deliveries, pauses, steps, seconds, abandonment) to `recording`'s.
    mutating func takeNumbers(of recording: RunRecording) {
        operations = recording.operationsPerformed
        deliveries = recording.deliveries
        faultsInjected = recording.faultsInjected
        steps = recording.controlled?.steps ?? 0
        choiceSteps = recording.controlled?.choiceSteps
        hitStepLimit = recording.facts.stepLimitExceeded != nil
        seconds = recording.seconds
        abandoned = recording.abandoned
    }

    /// Whether the oracle held.
    public var passed: Bool { violationCounts.isEmpty }

    /// All checks made.
    public var totalChecks: Int { checks.values.reduce(0, +) }

    /// All violations counted.
    public var totalViolations: Int { violationCounts.values.reduce(0, +) }

    /// A stable summary of what failed, to compare a replay with the original: violation kinds, misuse kinds in
    /// parentheses, and a crash's signal, e.g. `missing-delivery+runtime-misuse(notRegistered,observerDeallocated)`
    /// or `crash(SIGSEGV)`. Empty if passed.
    public var signature: String {
        violationCounts.keys.sorted().map { kind in
            switch kind {
            case .runtimeMisuse:
                let kinds = runtimeMisuses.keys.map(\.rawValue).sorted().joined(separator: ",")
                return "\(kind.rawValue)(\(kinds))"
            case .crash:
                let signals = crashSignals.keys.filter { !Violation.trapSignals.contains($0) }.sorted()
                return signals.isEmpty ? kind.rawValue : "\(kind.rawValue)(\(signals.joined(separator: ",")))"
            default:
                return kind.rawValue
            }
        }.joined(separator: "+")
    }

    mutating func count(_ check: String, _ times: Int = 1) {
        checks[check, default: 0] += times
        // The oracle moving is the round's progress too (a round server's heartbeat).
        RoundProgress.advance()
    }

    mutating func add(_ violation: Violation) {
        let seen = violationCounts[violation.kind, default: 0]
        violationCounts[violation.kind] = seen + 1
        if seen < Self.keptPerKind { violations.append(violation) }
    }

    /// Adds another verdict to this one, making the verdict on both runs together: checks, violations (still the
    /// first ``keptPerKind`` of each kind in full), misuses, crash signals and numbers add up; `abandoned` and
    /// `hitStepLimit` hold if either holds; `choiceSteps` is the larger.
    package mutating func merge(_ other: Verdict) {
        for (check, count) in other.checks { checks[check, default: 0] += count }
        for violation in other.violations where violationCounts[violation.kind, default: 0] < Self.keptPerKind {
            violations.append(violation)
        }
        for (kind, count) in other.violationCounts { violationCounts[kind, default: 0] += count }
        for (kind, count) in other.runtimeMisuses { runtimeMisuses[kind, default: 0] += count }
        for (signal, count) in other.crashSignals { crashSignals[signal, default: 0] += count }
        inconclusiveKeys += other.inconclusiveKeys
        operations += other.operations
        deliveries += other.deliveries
        faultsInjected += other.faultsInjected
        steps += other.steps
        choiceSteps = [choiceSteps, other.choiceSteps].compactMap { $0 }.max()
        hitStepLimit = hitStepLimit || other.hitStepLimit
        seconds += other.seconds
        abandoned = abandoned || other.abandoned
        for (kind, count) in other.preventedMisuses { preventedMisuses[kind, default: 0] += count }
    }
}
