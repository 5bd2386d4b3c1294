#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The operations on a `pthread_mutex_t` at a fixed address: GuardCore's own locks in debug builds and on platforms
/// other than Linux (through ``InternalMutex``, for ``EmbeddedLock`` and ``Lock``, whose mutex has a heap block of its
/// own, and for objects that keep their mutex inline among their leading stored properties, ``ObservationTable``, so
/// that a per-object lock costs no allocation of its own), and ``LossyLineWriter``'s.
///
/// In debug builds the mutex is error-checking: a thread that takes it again while holding it (for example because
/// user code ran under it and called back into KVOGuard) stops with a message instead of hanging forever. Release
/// builds use a normal mutex. Every acquire and release is announced to ``SchedulePoints`` under the identity of the
/// object that owns the mutex (one atomic load when no hook is installed).
package enum PthreadMutex {
    /// A new mutex in a heap block of its own (its address never moves, which POSIX requires), initialized; free it
    /// with ``deallocate(_:)``.
    package static func allocate() -> UnsafeMutablePointer<pthread_mutex_t> {
        let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        initialize(mutex)
        return mutex
    }

    /// Destroys a mutex made by ``allocate()`` and frees its block; it must not be held.
    package static func deallocate(_ mutex: UnsafeMutablePointer<pthread_mutex_t>) {
        destroy(mutex)
        mutex.deinitialize(count: 1)
        mutex.deallocate()
    }

    /// Initializes the mutex at `mutex` (which must stay at that address until ``destroy(_:)``).
    package static func initialize(_ mutex: UnsafeMutablePointer<pthread_mutex_t>) {
        var attributes = pthread_mutexattr_t()
        pthread_mutexattr_init(&attributes)
        defer { pthread_mutexattr_destroy(&attributes) }
        #if DEBUG
        pthread_mutexattr_settype(&attributes, Int32(PTHREAD_MUTEX_ERRORCHECK))
        #endif
        let status = pthread_mutex_init(mutex, &attributes)
        precondition(status == 0, "pthread_mutex_init failed with \(status)")
    }

    /// Destroys the mutex; it must not be held.
    package static func destroy(_ mutex: UnsafeMutablePointer<pthread_mutex_t>) {
        let status = pthread_mutex_destroy(mutex)
        precondition(status == 0, "pthread_mutex_destroy failed with \(status) (the lock was destroyed while held)")
    }

    /// Blocks until the mutex is acquired.
    @inline(__always)
    package static func lock(_ mutex: UnsafeMutablePointer<pthread_mutex_t>, ownedBy owner: AnyObject) {
        SchedulePoints.willAcquire(owner)
        let status = pthread_mutex_lock(mutex)
        if status != 0 { fail("pthread_mutex_lock", status) }
    }

    /// Releases the mutex; the caller must hold it.
    @inline(__always)
    package static func unlock(_ mutex: UnsafeMutablePointer<pthread_mutex_t>, ownedBy owner: AnyObject) {
        let status = pthread_mutex_unlock(mutex)
        if status != 0 { fail("pthread_mutex_unlock", status) }
        SchedulePoints.didRelease(owner)
    }

    @inline(never)
    private static func fail(_ call: String, _ status: Int32) -> Never {
        switch status {
        case EDEADLK:
            preconditionFailure(
                "KVOGuard: a thread took a lock it already holds (\(call): EDEADLK). Something ran user code or "
                    + "re-entered KVOGuard while one of its internal locks was held; in a release build this hangs.")
        case EPERM:
            preconditionFailure("KVOGuard: a thread released a lock it does not hold (\(call): EPERM).")
        default:
            preconditionFailure("\(call) failed with \(status)")
        }
    }
}
