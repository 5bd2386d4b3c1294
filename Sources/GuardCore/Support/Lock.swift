#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A mutual-exclusion lock around a heap-allocated `pthread_mutex_t`.
///
/// The mutex lives on the heap so its address never moves, which POSIX requires, and ThreadSanitizer understands
/// it (unlike `Synchronization.Mutex` on Linux, which it reports falsely). It is available on every platform the
/// package targets, iOS 13 included. The lock is not recursive: taking it twice on one thread deadlocks.
package final class Lock: @unchecked Sendable {
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>

    /// Creates an unlocked lock.
    package init() {
        mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        let status = pthread_mutex_init(mutex, nil)
        precondition(status == 0, "pthread_mutex_init failed with \(status)")
    }

    deinit {
        let status = pthread_mutex_destroy(mutex)
        precondition(status == 0, "pthread_mutex_destroy failed with \(status)")
        mutex.deinitialize(count: 1)
        mutex.deallocate()
    }

    /// Blocks until the lock is acquired.
    @inline(__always)
    package func lock() {
        let status = pthread_mutex_lock(mutex)
        precondition(status == 0, "pthread_mutex_lock failed with \(status)")
    }

    /// Releases the lock; the caller must hold it.
    @inline(__always)
    package func unlock() {
        let status = pthread_mutex_unlock(mutex)
        precondition(status == 0, "pthread_mutex_unlock failed with \(status)")
    }

    /// Runs `body` with the lock held and returns its result; the lock is released even if `body` throws.
    @inline(__always)
    package func withLock<Result>(_ body: () throws -> Result) rethrows -> Result {
        lock()
        defer { unlock() }
        return try body()
    }
}
