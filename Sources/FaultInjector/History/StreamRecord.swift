/// What one consumer of a value sequence (``StreamPlan``) saw: when its iterator was made, each value with when the
/// consumer asked for it and when it came, and how the sequence ended.
public struct StreamRecord: Sendable {
    /// One value taken.
    public struct Value: Sendable {
        /// The value (a ``StressValue`` fingerprint: the integer itself).
        public var value: Int
        /// When the consumer called `next()` for it.
        public var asked: UInt64
        /// When `next()` returned it.
        public var received: UInt64
    }

    /// How the consumer stopped.
    public enum End: Sendable, Equatable {
        /// `next()` returned `nil` at `time`.
        case finished(at: UInt64)
        /// The consumer cancelled its task at `cancelled`, and `next()` returned `nil` at `finished` (`nil`: it did not
        /// return `nil`).
        case cancelled(at: UInt64, finished: UInt64?)
        /// The consumer left the loop (dropping the iterator) at `time`.
        case left(at: UInt64)
        /// The sequence never ended, although its object was gone (the consumer was cancelled after waiting for it).
        case neverEnded
        /// The object was still alive after the teardown (a leak, reported on its own): the consumer was cancelled.
        case objectOutlivedTheRun
    }

    /// The plan it followed.
    public var plan: StreamPlan
    /// The observed object's id (-1 when the slot was empty: nothing was observed).
    public var object: Int
    /// When making the iterator (which starts the observation) began and ended.
    public var madeFrom: UInt64
    /// See ``madeFrom``.
    public var madeUntil: UInt64
    /// The values taken, in order.
    public var values: [Value]
    /// How it stopped.
    public var end: End
}
