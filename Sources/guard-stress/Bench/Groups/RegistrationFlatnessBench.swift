import GuardCore

/// Group 5: observe and unobserve (and the raw runtime's add and remove) through a controller (or raw observer)
/// that already holds 10, 1,000 or 100,000 registrations on other objects. Flat means the ratios to the
/// 10-registration figures stay near 1. The three controllers live side by side and are measured alternately in
/// the same rounds, so a noisy moment of the machine cannot pass for a slope.
struct RegistrationFlatnessBench: BenchGroup {
    let title = "5. Registration with many registrations elsewhere"

    static let counts = [10, 1_000, 100_000]
    static let operations = ["guard-observe", "guard-unobserve", "raw-add", "raw-remove"]

    var figures: [FigureSpec] {
        let summaries = [
            "guard-observe": "one guard observe (.new/.old) of a fresh object by a controller",
            "guard-unobserve": "one guard unobserve of that object",
            "raw-add": "one raw addObserver (.new/.old) to a fresh object by an observer",
            "raw-remove": "one raw removeObserver from that object",
        ]
        return Self.operations.flatMap { operation in
            Self.counts.map { count in
                FigureSpec(
                    Self.name(operation, count), .nanoseconds,
                    baseline: count == Self.counts[0] ? nil : Self.name(operation, Self.counts[0]),
                    "\(summaries[operation]!) that holds \(Format.count(count)) registrations on other objects")
            }
        }
    }

    static func name(_ operation: String, _ count: Int) -> String {
        "registration.\(operation).\(count)-elsewhere"
    }

    func measure(_ context: BenchContext) -> [String: Double] {
        let batch = context.scale.pick(full: 500, quick: 200)
        let counts = Self.counts.filter { count in Self.operations.contains { context.wants(Self.name($0, count)) } }
        let setups = counts.map { Elsewhere(count: $0) }
        defer { setups.forEach { $0.tearDown() } }
        return context.sampler.medians { round, record in
            for offset in setups.indices {
                let setup = setups[(offset + round) % setups.count]
                let models = (0..<batch).map { _ in BenchModel() }
                let perOperation = Double(batch)
                let controller = setup.controller
                let observer = setup.observer
                record(
                    Self.name("guard-observe", setup.count),
                    Stopwatch.nanoseconds { for model in models { Tally.observe(model, with: controller) } } / perOperation)
                record(
                    Self.name("guard-unobserve", setup.count),
                    Stopwatch.nanoseconds {
                        for model in models { controller.unobserve(model, keyPath: BenchModel.key) }
                    } / perOperation)
                record(
                    Self.name("raw-add", setup.count),
                    Stopwatch.nanoseconds {
                        for model in models { model.addObserver(observer, forKeyPath: BenchModel.key, options: [.new, .old]) }
                    } / perOperation)
                record(
                    Self.name("raw-remove", setup.count),
                    Stopwatch.nanoseconds {
                        for model in models { model.removeObserver(observer, forKeyPath: BenchModel.key) }
                    } / perOperation)
            }
        }
    }
}

/// A controller and a raw observer, each holding `count` registrations on objects of their own.
private struct Elsewhere {
    let count: Int
    let observer = Tally()
    let controller: ObservationController<Tally>
    let rawObserved: [BenchModel]
    let guardObserved: [BenchModel]

    init(count: Int) {
        self.count = count
        controller = observer.makeController()
        rawObserved = (0..<count).map { _ in BenchModel() }
        guardObserved = (0..<count).map { _ in BenchModel() }
        for model in rawObserved {
            model.addObserver(observer, forKeyPath: BenchModel.key, options: [.new, .old])
        }
        for model in guardObserved {
            Tally.observe(model, with: controller)
        }
    }

    func tearDown() {
        for model in rawObserved { model.removeObserver(observer, forKeyPath: BenchModel.key) }
        controller.unobserveAll()
    }
}
