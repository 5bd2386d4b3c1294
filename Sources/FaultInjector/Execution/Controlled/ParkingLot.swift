#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A pthread mutex with one condition variable per party, where each party parks until it is woken: the
/// cooperative scheduler's own lock and wake-ups (one party per worker, one for the runner).
///
/// It is deliberately not GuardCore's `Lock`, which announces every acquire and release to the schedule hook,
/// that is, to the scheduler itself, which would recurse.
final class ParkingLot: @unchecked Sendable {
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    private let conditions: UnsafeMutablePointer<pthread_cond_t>
    private let parties: Int

    /// A parking lot with `parties` condition variables, numbered from 0.
    init(parties: Int) {
        self.parties = parties
        mutex = .allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        var status = pthread_mutex_init(mutex, nil)
        precondition(status == 0, "pthread_mutex_init failed with \(status)")
        conditions = .allocate(capacity: parties)
        for party in 0..<parties {
            (conditions + party).initialize(to: pthread_cond_t())
            status = pthread_cond_init(conditions + party, nil)
            precondition(status == 0, "pthread_cond_init failed with \(status)")
        }
    }

    deinit {
        for party in 0..<parties { pthread_cond_destroy(conditions + party) }
        conditions.deinitialize(count: parties)
        conditions.deallocate()
        pthread_mutex_destroy(mutex)
        mutex.deinitialize(count: 1)
        mutex.deallocate()
    }

    func lock() {
        pthread_mutex_lock(mutex)
    }

    func unlock() {
        pthread_mutex_unlock(mutex)
    }

    /// Waits (mutex held) until `party` is signalled or woken spuriously.
    func wait(_ party: Int) {
        pthread_cond_wait(conditions + party, mutex)
    }

    /// Waits (mutex held) at most `seconds` for `party` to be signalled.
    func wait(_ party: Int, seconds: Double) {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        let nanoseconds = Int(now.tv_nsec) + Int(seconds * 1e9)
        var deadline = timespec()
        deadline.tv_sec = now.tv_sec + time_t(nanoseconds / 1_000_000_000)
        deadline.tv_nsec = Int(nanoseconds % 1_000_000_000)
        pthread_cond_timedwait(conditions + party, mutex, &deadline)
    }

    /// Wakes `party` (call with the mutex held).
    func signal(_ party: Int) {
        pthread_cond_signal(conditions + party)
    }
}
