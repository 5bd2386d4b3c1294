/// Derives independent seeds from one run seed, so each worker has its own streams and a worker's choices never
/// depend on how threads interleave.
public enum StreamSeeds {
    /// What a stream is used for; each purpose gets disjoint seeds.
    public enum Purpose: UInt64, Sendable {
        /// The operations a worker performs (fixed before the run starts).
        case operations = 1
        /// The faults a worker injects (yields, spins, sleeps) while running.
        case faults = 2
        /// Per-round seeds of a campaign.
        case rounds = 3
        /// The choices of a controlled run's scheduling strategy (index 0).
        case schedule = 4
    }

    /// The seed of stream `index` for `purpose` under `runSeed`.
    public static func seed(run runSeed: UInt64, purpose: Purpose, index: Int) -> UInt64 {
        SplitMix64.mix(SplitMix64.mix(runSeed ^ (purpose.rawValue &* 0xD1B5_4A32_D192_ED03)) &+ UInt64(index))
    }

    /// A generator for stream `index` of `purpose` under `runSeed`.
    public static func generator(run runSeed: UInt64, purpose: Purpose, index: Int) -> Xoshiro256StarStar {
        Xoshiro256StarStar(seed: seed(run: runSeed, purpose: purpose, index: index))
    }
}
