/// One numbered group of figures (the unobserved set, notification, registration, …).
///
/// A group declares its figures up front, then measures them when asked; it may skip a case whose figures nobody
/// asked for (see ``BenchContext/wants(_:)``).
protocol BenchGroup: Sendable {
    /// The group's heading in the table, such as "1. Set of a property nobody observes".
    var title: String { get }
    /// Every figure the group can produce, in table order.
    var figures: [FigureSpec] { get }
    /// Measures the figures `context` wants (at least), and returns their values by name.
    func measure(_ context: BenchContext) -> [String: Double]
}

/// What a group measures with: the scale, the sampler, the figures wanted, and a place for problems.
final class BenchContext {
    /// Quick or full.
    let scale: BenchScale
    private let wanted: Set<String>
    /// Problems that make a run's figures suspect (an oracle violation in the harness group); each one line.
    private(set) var problems: [String] = []

    init(scale: BenchScale, wanted: Set<String>) {
        self.scale = scale
        self.wanted = wanted
    }

    /// The sampler for this scale.
    var sampler: Sampler { scale.sampler }

    /// Whether any of `names` is wanted (selected by the filter, or the baseline of one that is).
    func wants(_ names: String...) -> Bool {
        names.contains(where: wanted.contains)
    }

    /// The medians of `measurements` (taken with `sampler`, by default ``sampler``), or nothing when none of them is
    /// wanted, so a group can skip a case the filter left out.
    func medians(
        ifWanted measurements: [(name: String, measure: () -> Double)], sampler: Sampler? = nil
    ) -> [String: Double] {
        guard measurements.contains(where: { wanted.contains($0.name) }) else { return [:] }
        return (sampler ?? self.sampler).medians(measurements)
    }

    /// Records a problem; the command prints it and exits 1.
    func report(_ problem: String) {
        problems.append(problem)
    }
}
