import GuardCore

/// Group 5: observe and unobserve (and the raw runtime's add and remove) while the same controller (or raw
/// observer) already holds 10, 1,000 or 100,000 registrations on other objects. Flat means the ratios to the
/// 10-registration figures stay near 1.
struct RegistrationFlatnessBench: BenchGroup {
    let title = "5. Registration with many registrations elsewhere"

    static let counts = [10, 1_000, 100_000]
    static let operations = ["guard-observe", "guard-unobserve", "raw-add", "raw-remove"]

    var figures: [FigureSpec] {
        let summaries = [
            "guard-observe": "one guard observe (.new/.old) of a fresh object",
            "guard-unobserve": "one guard unobserve of that object",
            "raw-add": "one raw addObserver (.new/.old) to a fresh object",
            "raw-remove": "one raw removeObserver from that object",
        ]
        return Self.operations.flatMap { operation in
            Self.counts.map { count in
                FigureSpec(
                    Self.name(operation, count), .nanoseconds,
                    baseline: count == Self.counts[0] ? nil : Self.name(operation, Self.counts[0]),
                    "\(summaries[operation]!), with \(Format.count(count)) registrations elsewhere")
            }
        }
    }

    static func name(_ operation: String, _ count: Int) -> String {
        "registration.\(operation).\(count)-elsewhere"
    }

    func measure(_ context: BenchContext) -> [String: Double] {
        let batch = context.scale.pick(full: 2_000, quick: 500)
        let tally = Tally()
        let controller = tally.makeController()
        var elsewhereRaw: [BenchModel] = []
        var elsewhereGuarded: [BenchModel] = []
        defer {
            for model in elsewhereRaw { model.removeObserver(tally, forKeyPath: BenchModel.key) }
            controller.unobserveAll()
        }
        var values: [String: Double] = [:]
        for count in Self.counts {
            guard Self.operations.contains(where: { context.wants(Self.name($0, count)) }) else { continue }
            while elsewhereRaw.count < count {
                let model = BenchModel()
                model.addObserver(tally, forKeyPath: BenchModel.key, options: [.new, .old])
                elsewhereRaw.append(model)
            }
            while elsewhereGuarded.count < count {
                let model = BenchModel()
                Tally.observe(model, with: controller)
                elsewhereGuarded.append(model)
            }
            let medians = context.sampler.medians { _, record in
                let models = (0..<batch).map { _ in BenchModel() }
                let perOperation = Double(batch)
                record(
                    Self.name("guard-observe", count),
                    Stopwatch.nanoseconds { for model in models { Tally.observe(model, with: controller) } } / perOperation)
                record(
                    Self.name("guard-unobserve", count),
                    Stopwatch.nanoseconds {
                        for model in models { controller.unobserve(model, keyPath: BenchModel.key) }
                    } / perOperation)
                record(
                    Self.name("raw-add", count),
                    Stopwatch.nanoseconds {
                        for model in models { model.addObserver(tally, forKeyPath: BenchModel.key, options: [.new, .old]) }
                    } / perOperation)
                record(
                    Self.name("raw-remove", count),
                    Stopwatch.nanoseconds {
                        for model in models { model.removeObserver(tally, forKeyPath: BenchModel.key) }
                    } / perOperation)
            }
            values.merge(medians) { _, new in new }
        }
        return values
    }
}
