import GuardCore

/// The harness's own records kept while workers run (facts keyed by unique ids, lists used as sets): a value behind
/// a lock whose critical sections give the same final value in any order and reach no schedule point.
///
/// The lock is taken and announced as any other (a controlled run still schedules around it), but an explorer does
/// not count it in a step's footprint (``LockMode/quiet``): two workers adding records do not make their steps
/// dependent, so the harness's bookkeeping adds no classes of its own to an exploration.
final class UnorderedRecords<Value>: @unchecked Sendable {
    private let protected: Protected<Value>

    /// Keeps `value`.
    init(_ value: Value) {
        protected = Protected(value)
    }

    /// Runs `body` with exclusive access to the value. `body` must give the same final value whatever order it runs
    /// in with the other sections of the run, and must call no user code.
    func update<Result>(_ body: (inout Value) -> Result) -> Result {
        ControlledHook.withLockMode(.quiet) { protected.withValue(body) }
    }

    /// A copy of the value (for reading once the workers are done).
    var current: Value {
        ControlledHook.withLockMode(.quiet) { protected.current }
    }
}
