/// A mutual-exclusion lock with an identity of its own: an ``EmbeddedLock`` (a heap-allocated ``InternalMutex``) that
/// the lock object owns, for code that shares a lock between objects or keeps one in a value.
///
/// The mutex lives on the heap so its address never moves, which POSIX requires, and ThreadSanitizer understands
/// it (unlike `Synchronization.Mutex` on Linux, which it reports falsely). It is available on every platform the
/// package targets, iOS 13 included.
///
/// The lock is not recursive. In debug builds it is an error-checking mutex: a thread that takes it again while
/// holding it (for example because user code ran under it and called back into KVOGuard) stops with a message
/// instead of hanging forever. Release builds use a ``WordLock`` on Linux and a normal mutex elsewhere (see ``InternalMutex``).
///
/// Every acquire and release is announced to ``SchedulePoints`` (one atomic load when no hook is installed), so a
/// fault injector can interleave threads at lock boundaries and a cooperative scheduler can tell which thread
/// holds which lock.
package final class Lock: @unchecked Sendable {
    private let embedded = EmbeddedLock()

    /// Creates an unlocked lock.
    package init() {
        SchedulePoints.created(self)
    }

    /// Blocks until the lock is acquired.
    @inline(__always)
    package func lock() {
        embedded.lock(ownedBy: self)
    }

    /// Releases the lock; the caller must hold it.
    @inline(__always)
    package func unlock() {
        embedded.unlock(ownedBy: self)
    }

    /// Runs `body` with the lock held and returns its result; the lock is released even if `body` throws.
    @inline(__always)
    package func withLock<Result>(_ body: () throws -> Result) rethrows -> Result {
        lock()
        defer { unlock() }
        return try body()
    }
}
