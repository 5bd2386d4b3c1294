/// A value that is only ever read or written while holding its own lock: GuardCore's one locked-value box.
///
/// ```swift
/// let names = Protected<[String]>([])
/// names.withValue { $0.append("first") }
/// ```
///
/// The lock is a ``Lock``'s (same primitive, same guarantees, every acquire and release announced to
/// ``SchedulePoints`` under the box's identity), kept inline with the value: a box is one allocation. Use it for
/// process-wide settings and small shared tables.
package final class Protected<Value>: @unchecked Sendable {
    /// The primitive, reached by address only (``LockOperations/primitive(of:afterWords:)``): keep it first.
    private var lockPrimitive = LockPrimitive()
    /// Touched only under the lock, so the run-time exclusivity checks would only cost time.
    @exclusivity(unchecked) private var value: Value

    /// Wraps `value`.
    package init(_ value: Value) {
        self.value = value
        LockOperations.initialize(LockOperations.primitive(of: self))
        SchedulePoints.created(self)
    }

    deinit {
        LockOperations.destroy(LockOperations.primitive(of: self))
    }

    /// Runs `body` with exclusive access to the value and returns its result.
    @inline(__always)
    package func withValue<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        let primitive = LockOperations.primitive(of: self)
        LockOperations.lock(primitive, announcedAs: self)
        defer { LockOperations.unlock(primitive, announcedAs: self) }
        return try body(&value)
    }

    /// Replaces the value and returns the previous one, for the caller to release after the lock is released.
    package func exchange(_ newValue: Value) -> Value {
        withValue { value in
            let previous = value
            value = newValue
            return previous
        }
    }

    /// Runs `body` with read access to the value and returns its result. Announced to a fault injector as a
    /// read-only critical section: `body` must change nothing the lock guards and must reach no schedule point (call
    /// no GuardCore code that takes a lock or announces an access).
    @inline(__always)
    package func read<Result>(_ body: (Value) throws -> Result) rethrows -> Result {
        let primitive = LockOperations.primitive(of: self)
        LockOperations.lock(primitive, announcedAs: self, readOnly: true)
        defer { LockOperations.unlock(primitive, announcedAs: self) }
        return try body(value)
    }

    /// A copy of the current value (a read-only critical section).
    package var current: Value {
        read { $0 }
    }
}
