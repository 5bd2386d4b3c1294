import Dispatch

/// Monotonic time in nanoseconds, comparable across threads of one process.
package enum MonotonicClock {
    @inline(__always)
    package static var now: UInt64 {
        DispatchTime.now().uptimeNanoseconds
    }
}
