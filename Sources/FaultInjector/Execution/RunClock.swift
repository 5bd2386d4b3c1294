import GuardCore

/// The clock a run stamps its history with.
///
/// The chaos runner uses monotonic nanoseconds. The controlled runner uses logical ticks, one per reading: only
/// one worker runs at a time, so ticks order events exactly as they happened, and the same schedule gives the
/// same ticks, which makes a controlled history repeat bit for bit.
final class RunClock: Sendable {
    private let ticks: AtomicCell?

    private init(ticks: AtomicCell?) {
        self.ticks = ticks
    }

    /// Monotonic nanoseconds.
    static func monotonic() -> RunClock { RunClock(ticks: nil) }

    /// Logical ticks from 1.
    static func logical() -> RunClock { RunClock(ticks: AtomicCell()) }

    /// How many ticks were taken so far (logical clocks; 0 for a monotonic one), without taking one.
    var ticksTaken: UInt64 {
        guard let ticks else { return 0 }
        return UInt64(ticks.word.loadInt(ordering: .relaxed))
    }

    /// The current time (a tick is taken by reading it).
    @inline(__always)
    var now: UInt64 {
        if let ticks { return UInt64(ticks.word.add(1, ordering: .relaxed)) }
        return MonotonicClock.now
    }
}
