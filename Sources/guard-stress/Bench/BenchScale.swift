/// How long the bench measures: the full run for people, or `--quick` for CI (a few seconds in all).
///
/// Both modes measure the same figures under the same names; quick mode uses fewer repetitions and shorter loops,
/// so its numbers are noisier.
struct BenchScale {
    /// Whether this is the `--quick` mode.
    let isQuick: Bool

    /// Rounds measured and thrown away before the repetitions.
    var warmUps: Int { 1 }

    /// Repetitions whose median is the figure: many short ones rather than a few long ones, so the median stays
    /// clear of the moments a busy machine takes the core away.
    var repetitions: Int { isQuick ? 5 : 15 }

    /// `full` in the full run, `quick` in quick mode.
    func pick<Value>(full: Value, quick: Value) -> Value {
        isQuick ? quick : full
    }

    /// The sampler most groups measure with.
    var sampler: Sampler {
        Sampler(warmUps: warmUps, repetitions: repetitions)
    }

    /// A sampler with fewer, longer repetitions, for figures that take long to measure once and vary little (heap
    /// bytes, whole stress runs).
    func sampler(fullRepetitions: Int, quickRepetitions: Int) -> Sampler {
        Sampler(warmUps: warmUps, repetitions: pick(full: fullRepetitions, quick: quickRepetitions))
    }
}
