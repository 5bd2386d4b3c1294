import Dispatch

/// Monotonic time for measurements.
enum Stopwatch {
    /// Nanoseconds on a monotonic clock.
    @inline(__always)
    static func now() -> UInt64 {
        DispatchTime.now().uptimeNanoseconds
    }

    /// Runs `body` once and returns the nanoseconds it took.
    @inline(__always)
    static func nanoseconds(_ body: () -> Void) -> Double {
        let start = now()
        body()
        return Double(now() &- start)
    }
}
