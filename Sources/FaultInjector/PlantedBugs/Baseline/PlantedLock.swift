#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import GuardCore

/// The lock of the planted bugs' controllers: a plain (not error-checking) heap `pthread_mutex_t` that announces
/// every acquire and release to GuardCore's ``SchedulePoints``, as GuardCore's own `Lock` does.
///
/// It differs from `Lock` in one way, on purpose: taking it again on the thread that holds it hangs in every build
/// (a normal mutex), where `Lock` stops a debug build with a message. So a planted bug that calls a handler under
/// this lock, or returns without releasing it, is a real deadlock: the controlled runner names it at once (it sees
/// every acquire), and a chaos round hangs until its watchdog, which in a child process is the verdict `deadlock`.
final class PlantedLock: @unchecked Sendable {
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>

    init() {
        mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        var attributes = pthread_mutexattr_t()
        pthread_mutexattr_init(&attributes)
        pthread_mutexattr_settype(&attributes, Int32(PTHREAD_MUTEX_NORMAL))
        let status = pthread_mutex_init(mutex, &attributes)
        pthread_mutexattr_destroy(&attributes)
        precondition(status == 0, "pthread_mutex_init failed with \(status)")
    }

    deinit {
        // A planted bug may leave it held (that is the bug); destroying a held mutex is not worth a trap here.
        pthread_mutex_destroy(mutex)
        mutex.deinitialize(count: 1)
        mutex.deallocate()
    }

    /// Blocks until the lock is acquired (for ever, if the calling thread holds it).
    func lock() {
        SchedulePoints.willAcquire(self)
        pthread_mutex_lock(mutex)
    }

    /// Releases the lock; the caller must hold it.
    func unlock() {
        pthread_mutex_unlock(mutex)
        SchedulePoints.didRelease(self)
    }

    /// Runs `body` with the lock held.
    func withLock<Result>(_ body: () throws -> Result) rethrows -> Result {
        lock()
        defer { unlock() }
        return try body()
    }
}
