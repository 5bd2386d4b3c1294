/// The groups of figures, in order, and running a plan of them.
enum BenchSuite {
    /// Every group.
    static let groups: [any BenchGroup] = [
        UnobservedSetBench(), NotificationBench(), ObserverScalingBench(), RegistrationPairBench(),
        RegistrationFlatnessBench(), ThroughputBench(), MemoryBench(), HarnessBench(), ExplorationBench(),
    ]

    /// What a run measured: figures by section title, and problems that make them suspect.
    struct Outcome {
        var sections: [(title: String, figures: [Figure])] = []
        var problems: [String] = []

        /// Every figure, in table order.
        var figures: [Figure] { sections.flatMap(\.figures) }
    }

    /// Measures every figure of `plan` at `scale`; `progress` is told each group's title before it runs, and then
    /// again with the seconds it took.
    static func run(
        _ plan: BenchPlan, scale: BenchScale, progress: (_ title: String, _ seconds: Double?) -> Void = { _, _ in }
    ) -> Outcome {
        let context = BenchContext(scale: scale, wanted: plan.names)
        var values: [String: Double] = [:]
        for section in plan.sections {
            progress(section.group.title, nil)
            let started = Stopwatch.now()
            values.merge(section.group.measure(context)) { _, new in new }
            progress(section.group.title, Double(Stopwatch.now() &- started) / 1e9)
        }
        var outcome = Outcome(problems: context.problems)
        for section in plan.sections {
            let figures = section.figures.compactMap { spec -> Figure? in
                guard let value = values[spec.name], value.isFinite else { return nil }
                var ratio: Double?
                if let baseline = spec.baseline, let base = values[baseline], base != 0, base.isFinite {
                    ratio = value / base
                }
                return Figure(name: spec.name, value: value, unit: spec.unit.rawValue, baseline: spec.baseline, ratio: ratio)
            }
            outcome.sections.append((section.group.title, figures))
        }
        let missing = plan.names.subtracting(outcome.figures.map(\.name))
        if !missing.isEmpty {
            outcome.problems.append("no value was measured for " + missing.sorted().joined(separator: ", "))
        }
        return outcome
    }
}
