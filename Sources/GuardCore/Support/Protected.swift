/// A value that is only ever read or written while holding its own ``Lock``.
///
/// Use it for process-wide settings and small shared tables that are not on a hot path.
package final class Protected<Value>: @unchecked Sendable {
    private let lock = Lock()
    /// Touched only under the lock, so the run-time exclusivity checks would only cost time.
    @exclusivity(unchecked) private var value: Value

    /// Wraps `value`.
    package init(_ value: Value) {
        self.value = value
    }

    /// Runs `body` with exclusive access to the value and returns its result.
    @inline(__always)
    package func withValue<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        try lock.withLock { try body(&value) }
    }

    /// Replaces the value and returns the previous one, for the caller to release after the lock is released.
    package func exchange(_ newValue: Value) -> Value {
        lock.withLock {
            let previous = value
            value = newValue
            return previous
        }
    }

    /// A copy of the current value.
    package var current: Value {
        lock.withLock { value }
    }
}
