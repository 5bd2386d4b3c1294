import Dispatch

/// Monotonic time in nanoseconds, comparable across threads of one process.
enum MonotonicClock {
    @inline(__always)
    static var now: UInt64 {
        DispatchTime.now().uptimeNanoseconds
    }
}
