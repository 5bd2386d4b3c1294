/// Which figures a bench run measures: those the filter selects, plus (transitively) their baselines, grouped in
/// table order.
struct BenchPlan {
    /// Each group with the figures it must deliver; groups with none are left out.
    let sections: [(group: any BenchGroup, figures: [FigureSpec])]

    /// Every group's figures, or those `filter` selects with their baselines. Throws a usage error when the filter
    /// selects nothing.
    init(groups: [any BenchGroup], filter: FigureFilter?) throws {
        let all = groups.flatMap(\.figures)
        var wanted = Set(all.map(\.name).filter { filter?.matches($0) ?? true })
        guard !wanted.isEmpty else {
            throw UsageError(filter?.selectsNothing ?? "no figure to measure")
        }
        let byName = Dictionary(uniqueKeysWithValues: all.map { ($0.name, $0) })
        var pending = Array(wanted)
        while let name = pending.popLast() {
            guard let baseline = byName[name]?.baseline, !wanted.contains(baseline) else { continue }
            wanted.insert(baseline)
            pending.append(baseline)
        }
        sections = groups.compactMap { group in
            let figures = group.figures.filter { wanted.contains($0.name) }
            return figures.isEmpty ? nil : (group, figures)
        }
    }

    /// The names of every figure in the plan.
    var names: Set<String> {
        Set(sections.flatMap { $0.figures.map(\.name) })
    }
}
