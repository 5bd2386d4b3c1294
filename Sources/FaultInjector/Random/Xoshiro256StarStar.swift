/// Blackman and Vigna's xoshiro256**: the fault injector's workhorse generator (fast, 256-bit state, good quality).
///
/// All draws the harness makes go through ``next(below:)`` and ``chance(_:)`` rather than the standard library's
/// `random(in:using:)`, whose algorithm is not guaranteed stable across Swift versions; a seed file written today
/// replays the same operations tomorrow.
public struct Xoshiro256StarStar: RandomNumberGenerator, Sendable {
    private var s0: UInt64
    private var s1: UInt64
    private var s2: UInt64
    private var s3: UInt64

    /// Seeds the 256-bit state from `seed` through ``SplitMix64``, as the authors recommend.
    public init(seed: UInt64) {
        var seeder = SplitMix64(seed: seed)
        s0 = seeder.next()
        s1 = seeder.next()
        s2 = seeder.next()
        s3 = seeder.next()
    }

    /// The next 64 random bits.
    public mutating func next() -> UInt64 {
        let result = rotateLeft(s1 &* 5, by: 7) &* 9
        let t = s1 << 17
        s2 ^= s0
        s3 ^= s1
        s1 ^= s2
        s0 ^= s3
        s2 ^= t
        s3 = rotateLeft(s3, by: 45)
        return result
    }

    /// A uniform integer in `0..<bound` (Lemire's multiply-and-reject); `bound` must be positive.
    public mutating func next(below bound: Int) -> Int {
        precondition(bound > 0, "next(below:) needs a positive bound")
        let range = UInt64(bound)
        var product = next().multipliedFullWidth(by: range)
        if product.low < range {
            let threshold = (0 &- range) % range
            while product.low < threshold {
                product = next().multipliedFullWidth(by: range)
            }
        }
        return Int(product.high)
    }

    /// A uniform integer in `range`.
    public mutating func next(in range: ClosedRange<Int>) -> Int {
        range.lowerBound + next(below: range.count)
    }

    /// `true` with probability `probability` (0 gives never, 1 always).
    public mutating func chance(_ probability: Double) -> Bool {
        guard probability > 0 else { return false }
        guard probability < 1 else { return true }
        return Double(next() >> 11) * 0x1.0p-53 < probability
    }

    /// An index drawn with probability proportional to `weights` (all non-negative, not all zero).
    public mutating func pick(weights: [Int]) -> Int {
        let total = weights.reduce(0, +)
        precondition(total > 0, "pick(weights:) needs a positive total weight")
        var roll = next(below: total)
        for (index, weight) in weights.enumerated() {
            if roll < weight { return index }
            roll -= weight
        }
        return weights.count - 1
    }

    private func rotateLeft(_ value: UInt64, by amount: UInt64) -> UInt64 {
        (value << amount) | (value >> (64 - amount))
    }
}
