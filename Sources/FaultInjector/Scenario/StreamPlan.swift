/// One consumer of a value sequence (`values(of:bufferingNewest:)`) that a chaos round runs beside its workers: which
/// object slot and key it follows, how many values may wait for it, how slowly it takes them, and how it stops.
///
/// A round's plans are drawn from its seed (``plans(for:)``), so a replay runs the same consumers; their timing, like
/// the workers', is the machine's.
public struct StreamPlan: Hashable, Sendable {
    /// How the consumer stops.
    public enum Ending: Hashable, Sendable {
        /// It takes values until the sequence ends (its object deinitialized, at the latest in the teardown).
        case whenTheSequenceEnds
        /// It cancels its own task after this many values; the next `next()` must return `nil` at once.
        case cancelAfter(Int)
        /// It leaves the loop after this many values (dropping the iterator ends the observation).
        case leaveAfter(Int)
    }

    /// The object slot whose object it observes when it starts.
    public let objectSlot: Int
    /// The key: `k0` or `k1` (stored integers that a handler never changes again during their own notification,
    /// so each value a change pushes is that change's new value).
    public let key: StressKey
    /// `bufferingNewest`.
    public let limit: Int
    /// Microseconds it waits after taking each value (0: none), so values pile up and the oldest are dropped.
    public let stallMicroseconds: Int
    /// How it stops.
    public let ending: Ending

    /// The keys a consumer may follow.
    public static let keys: [StressKey] = [.k0, .k1]

    /// The consumers of a round of `scenario`: ``ScenarioConfiguration/streams`` of them, drawn from its seed.
    public static func plans(for scenario: Scenario) -> [StreamPlan] {
        let configuration = scenario.configuration
        guard configuration.streams > 0 else { return [] }
        var g = Xoshiro256StarStar(seed: SplitMix64.mix(scenario.seed ^ 0x5354_5245_414D_5321))
        return (0..<configuration.streams).map { _ in
            let stalls = [0, 0, 20, 200, 1_000]
            let ending: Ending
            switch g.next(below: 4) {
            case 0: ending = .cancelAfter(1 + g.next(below: 20))
            case 1: ending = .leaveAfter(1 + g.next(below: 20))
            default: ending = .whenTheSequenceEnds
            }
            return StreamPlan(
                objectSlot: g.next(below: configuration.objects), key: keys[g.next(below: keys.count)],
                limit: 1 + g.next(below: 4), stallMicroseconds: stalls[g.next(below: stalls.count)], ending: ending)
        }
    }
}
