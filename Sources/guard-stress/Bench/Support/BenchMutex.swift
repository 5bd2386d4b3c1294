#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A heap-allocated `pthread_mutex_t`: the lock of the notification floor, and the lock a correct app holds around
/// sets of an object shared between threads. Nothing else: no hooks, no error checking.
final class BenchMutex: @unchecked Sendable {
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>

    /// A plain mutex, or (with `spinsBeforeSleeping`, where the C library has one: glibc's adaptive mutex) one that
    /// spins briefly on a held lock before it sleeps. With many more threads than cores, a plain mutex convoys: each
    /// unlock wakes a sleeper with a system call while the unlocking thread takes the lock again, so the threads
    /// spend their time waking and sleeping instead of working.
    init(spinsBeforeSleeping: Bool = false) {
        mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        var attributes = pthread_mutexattr_t()
        pthread_mutexattr_init(&attributes)
        #if canImport(Glibc)
        if spinsBeforeSleeping {
            pthread_mutexattr_settype(&attributes, Int32(PTHREAD_MUTEX_ADAPTIVE_NP))
        }
        #endif
        let status = pthread_mutex_init(mutex, &attributes)
        pthread_mutexattr_destroy(&attributes)
        precondition(status == 0, "pthread_mutex_init failed with \(status)")
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }

    @inline(__always)
    func lock() {
        pthread_mutex_lock(mutex)
    }

    @inline(__always)
    func unlock() {
        pthread_mutex_unlock(mutex)
    }
}
