#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// One worker's injected pauses, drawn from its own fault stream: yields, busy spins and short sleeps between
/// operations and at GuardCore's schedule points.
struct FaultInjection {
    private var generator: Xoshiro256StarStar
    let profile: FaultProfile
    private(set) var injected = 0

    init(profile: FaultProfile, seed: UInt64, worker: Int) {
        self.profile = profile
        self.generator = StreamSeeds.generator(run: seed, purpose: .faults, index: worker)
    }

    /// Maybe pauses, according to the profile.
    mutating func maybePause() {
        guard profile.isEnabled else { return }
        if generator.chance(profile.yieldProbability) {
            injected += 1
            sched_yield()
        } else if generator.chance(profile.spinProbability) {
            injected += 1
            let iterations = generator.next(below: max(1, profile.maxSpinIterations))
            var sink = 0
            for step in 0..<iterations { sink &+= step }
            Spin.blackHole(sink)
        } else if generator.chance(profile.sleepProbability) {
            injected += 1
            usleep(UInt32(1 + generator.next(below: max(1, profile.maxSleepMicroseconds))))
        }
    }
}

/// Keeps a spin loop from being optimised away.
enum Spin {
    @inline(never)
    static func blackHole(_ value: Int) {
        if value == .min { print("") }
    }
}
