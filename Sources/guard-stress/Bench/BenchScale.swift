/// How long the bench measures: the full run for people, or `--quick` for CI (a few seconds in all).
///
/// Both modes measure the same figures under the same names; quick mode uses fewer repetitions and shorter loops,
/// so its numbers are noisier.
struct BenchScale {
    /// Whether this is the `--quick` mode.
    let isQuick: Bool

    /// Rounds measured and thrown away before the repetitions.
    var warmUps: Int { 1 }

    /// Repetitions whose median is the figure.
    var repetitions: Int { isQuick ? 3 : 7 }

    /// `full` in the full run, `quick` in quick mode.
    func pick<Value>(full: Value, quick: Value) -> Value {
        isQuick ? quick : full
    }

    /// The sampler every group measures with.
    var sampler: Sampler {
        Sampler(warmUps: warmUps, repetitions: repetitions)
    }
}
