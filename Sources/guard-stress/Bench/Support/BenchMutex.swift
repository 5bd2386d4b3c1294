#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A plain heap-allocated `pthread_mutex_t`: the lock of the notification floor, and the lock a correct app holds
/// around sets of an object shared between threads. Nothing else: no hooks, no error checking.
final class BenchMutex: @unchecked Sendable {
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>

    init() {
        mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        let status = pthread_mutex_init(mutex, nil)
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
