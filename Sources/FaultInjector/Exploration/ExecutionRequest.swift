/// What one decision of a prefix looked like when the explorer first ran it; a re-execution must see it again.
struct DecisionCheck: Hashable, Sendable, Codable {
    /// The point's code.
    var point: UInt8
    /// The worker that reached it (-1 at the start).
    var current: Int
    /// The workers that could run.
    var runnable: UInt64
    /// The signature of the step that followed (``StepSignature``); `nil` for the prefix's last step, the new one.
    var signature: UInt64?
}

/// One execution the explorer asks for: follow `prefix` (checking every decision and step against `checks`), then
/// choose by the default rule, keeping the sleep set.
struct ExecutionRequest: Sendable, Codable {
    /// The worker to choose at each of the first decisions; the last one is the new branch.
    var prefix: [Int]
    /// What each decision of the prefix must look like.
    var checks: [DecisionCheck]
    /// The sleep set at the state before the prefix's last step.
    var sleep: SleepSet
    /// Whether to keep sleep sets at all (plain depth-first search and preemption-bounded search keep none).
    var usesSleepSets: Bool
}

/// A step's fingerprint without addresses: who ran, where, who could, and for each access whether it wrote, its kind
/// of word and where the same object was touched last (step and position). Two executions that run the same steps
/// in the same order give the same signatures.
enum StepSignature {
    /// The signature of `step`, the `index`-th, given the touches of the steps before it.
    static func of(_ step: ExploredStep, at index: Int, touches: TouchIndex, execution: ExploredExecution) -> UInt64 {
        var hash: UInt64 = 0xCBF2_9CE4_8422_2325
        func mix(_ value: UInt64) {
            var bits = value
            for _ in 0..<8 {
                hash = (hash ^ (bits & 0xFF)) &* 0x0000_0100_0000_01B3
                bits >>= 8
            }
        }
        mix(UInt64(bitPattern: Int64(step.worker)))
        mix(UInt64(bitPattern: Int64(step.current)))
        mix(UInt64(step.point))
        mix(step.runnable)
        for access in step.accesses {
            mix(UInt64(bitPattern: touches.lastTouch(of: access.object, before: index)))
            mix(UInt64(execution.objectWords[Int(access.object)]) << 2 | (access.writes ? 1 : 0) | (access.releaseOnly ? 2 : 0))
            mix(UInt64(bitPattern: execution.objectNames[Int(access.object)]))
        }
        return hash
    }
}

/// What one execution gave: its steps, its class and the oracle's verdict on it.
struct ExecutionReport: Sendable, Codable {
    /// The steps and where the execution stopped being new.
    var execution: ExploredExecution
    /// Why this execution cannot count toward a proof (a divergence from its prefix, the step limit, a worker blocked
    /// outside the scheduler's control); `nil` when it can.
    var problem: String?
    /// The class's name: a hash of the canonical order of its steps (two 64-bit halves).
    var classHash: [UInt64]
    /// The digest of the history with its times, ids and values put in canonical form: the same for every
    /// execution of one class.
    var canonicalDigest: String
    /// The oracle's signature (empty when it held).
    var signature: String
    /// A few of the violations, one line each.
    var examples: [String]
    /// The canonical order of the class, as the worker chosen at each step (to run it again).
    var canonicalWorkers: [Int]
    /// The schedule the execution took, in ``Schedule``'s text form (workers, points).
    var scheduleWorkers: String
    /// The points of the schedule.
    var schedulePoints: String
}
