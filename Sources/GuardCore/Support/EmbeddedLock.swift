#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The lock of one object, stored in it as a noncopyable value: the same heap-allocated `pthread_mutex_t` as
/// ``Lock`` (error-checking in debug builds), without an object of its own.
///
/// Taking a ``Lock`` that an object keeps in a stored property loads and retains the lock object around the call;
/// taking an embedded lock only reads the mutex's address, so a hot path that locks twice pays no reference counting
/// for it. Lock boundaries are announced to ``SchedulePoints`` under the identity of the owner the caller names, which
/// must be the object that stores the lock (each owner has one embedded lock).
struct EmbeddedLock: ~Copyable, @unchecked Sendable {
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>

    /// Creates an unlocked lock.
    init() {
        mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        PthreadMutex.initialize(mutex)
    }

    deinit {
        PthreadMutex.destroy(mutex)
        mutex.deinitialize(count: 1)
        mutex.deallocate()
    }

    /// Runs `body` with the lock held and returns its result; the lock is released even if `body` throws. `owner` is
    /// the object that stores this lock.
    @inline(__always)
    func withLock<Result>(ownedBy owner: AnyObject, _ body: () throws -> Result) rethrows -> Result {
        PthreadMutex.lock(mutex, ownedBy: owner)
        defer { PthreadMutex.unlock(mutex, ownedBy: owner) }
        return try body()
    }
}
