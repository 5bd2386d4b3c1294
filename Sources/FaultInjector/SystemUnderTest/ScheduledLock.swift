#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import GuardCore

/// The lock for a system under test of your own: a mutual-exclusion lock that the controlled runner can see.
///
/// ``ControlledRunner`` runs one worker at a time and switches only at schedule points. It sees GuardCore's own locks
/// and this one: every acquire and release is announced to its scheduler, exactly as GuardCore's locks announce
/// theirs. So when the scheduler pauses a worker that holds this lock, a worker that then asks for it is *blocked* on
/// it, and the scheduler runs another worker (eventually the holder, which releases it); a cycle of workers waiting
/// for each other's locks is reported at once as a deadlock naming each worker and lock; taking it again on the thread
/// that holds it is reported as a self-deadlock. A lock the scheduler cannot see (`NSLock`, `pthread_mutex_t`,
/// `os_unfair_lock`, `DispatchQueue.sync` used as a lock, a semaphore) blocks the worker's thread where the scheduler
/// does not look: if its holder is paused, nothing runs, and after ``ControlledRunner/Settings/blockedTimeout`` the
/// run is abandoned as blocked outside the scheduler's control. Use this lock wherever your wrapper serializes.
///
/// It also counts for the check that no user code (a handler, a diagnostic sink, an observer's deinit) runs while
/// the system under test holds one of its locks: a controlled run reports a handler called under this lock as
/// `called-under-lock`.
///
/// Outside a controlled run's workers it is a plain heap-allocated `pthread_mutex_t` (ThreadSanitizer understands it)
/// plus one atomic load per acquire and release (and, for a named lock, a thread-local lookup per acquire, which
/// hands the name to a controlled run's scheduler), so the chaos runner and your own code use it as they would use
/// `NSLock`. It is not recursive: taking it again on the thread that holds it blocks for ever, as `NSLock` does
/// (a controlled run reports that at once). Unlocking it from a thread that does not hold it is undefined.
public final class ScheduledLock: @unchecked Sendable {
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    /// The name reports give the lock, if any.
    public let name: String?

    /// Creates an unlocked lock. `name`, if given, appears in the controlled runner's deadlock reports and traces
    /// (`lock L3 (MyWrapper.table)`).
    public init(name: String? = nil) {
        self.name = name
        mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        // A normal mutex, asked for by name: relocking it blocks on every platform, as documented above.
        var attributes = pthread_mutexattr_t()
        pthread_mutexattr_init(&attributes)
        pthread_mutexattr_settype(&attributes, Int32(PTHREAD_MUTEX_NORMAL))
        let status = pthread_mutex_init(mutex, &attributes)
        pthread_mutexattr_destroy(&attributes)
        precondition(status == 0, "pthread_mutex_init failed with \(status)")
        SchedulePoints.created(self)
    }

    deinit {
        // A planted bug may leave it held (that is the bug); destroying a held mutex is not worth a trap here.
        pthread_mutex_destroy(mutex)
        mutex.deinitialize(count: 1)
        mutex.deallocate()
    }

    /// Blocks until the calling thread holds the lock. On a worker of a controlled run, the scheduler may run other
    /// workers first, and returns only when the lock is free for this one.
    public func lock() {
        if let name { ControlledHook.name(self, name) }
        SchedulePoints.willAcquire(self)
        let status = pthread_mutex_lock(mutex)
        precondition(status == 0, "pthread_mutex_lock failed with \(status)")
    }

    /// Releases the lock; the calling thread must hold it.
    public func unlock() {
        let status = pthread_mutex_unlock(mutex)
        precondition(status == 0, "pthread_mutex_unlock failed with \(status)")
        SchedulePoints.didRelease(self)
    }

    /// Runs `body` with the lock held and returns its result; the lock is released even if `body` throws.
    public func withLock<Result>(_ body: () throws -> Result) rethrows -> Result {
        lock()
        defer { unlock() }
        return try body()
    }
}
