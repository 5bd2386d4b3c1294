/// Takes every figure the same way: warm-up rounds that are thrown away, then repetitions, then the median.
///
/// Figures compared with each other are measured in the same rounds, alternating (and with the order rotated from
/// round to round), so a slow moment of a noisy machine hits both sides of a ratio alike.
struct Sampler {
    /// Rounds run and discarded first.
    let warmUps: Int
    /// Rounds whose values are kept.
    let repetitions: Int

    /// Runs each measurement once per round, alternating, and returns the median of each by name.
    func medians(_ measurements: [(name: String, measure: () -> Double)]) -> [String: Double] {
        medians { round, record in
            for offset in measurements.indices {
                let measurement = measurements[(offset + round) % measurements.count]
                record(measurement.name, measurement.measure())
            }
        }
    }

    /// Runs `round` `warmUps + repetitions` times; each round records values by name through its second argument.
    /// Returns the median of the values recorded under each name in the kept rounds.
    func medians(rounds round: (_ index: Int, _ record: (String, Double) -> Void) -> Void) -> [String: Double] {
        var samples: [String: [Double]] = [:]
        for index in 0..<(warmUps + repetitions) {
            round(index) { name, value in
                if index >= warmUps { samples[name, default: []].append(value) }
            }
        }
        return samples.mapValues(Self.median)
    }

    /// The median of `values` (the mean of the middle two for an even count).
    static func median(_ values: [Double]) -> Double {
        precondition(!values.isEmpty, "a median needs at least one value")
        let sorted = values.sorted()
        let middle = sorted.count / 2
        return sorted.count % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
    }
}
