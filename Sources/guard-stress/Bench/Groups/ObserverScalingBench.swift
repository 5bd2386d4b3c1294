/// Group 3: the guard against the raw runtime with 10, 100 and 1,000 observers of one key (1 is in group 2), and the
/// cost per notification, whose ratio to the previous observer count shows whether the cost is linear (≈ 1 or
/// below).
struct ObserverScalingBench: BenchGroup {
    let title = "3. Notification with many observers of one key"

    static let observerCounts = [10, 100, 1_000]

    var figures: [FigureSpec] {
        var specs: [FigureSpec] = []
        for count in Self.observerCounts {
            specs.append(
                FigureSpec(
                    Self.name("raw", count), .nanoseconds, "one set notifying \(count) raw runtime observers (.new/.old)"))
            specs.append(
                FigureSpec(
                    Self.name("guard", count), .nanoseconds, baseline: Self.name("raw", count),
                    "one set notifying \(count) guard handlers, one controller each (.new/.old)"))
        }
        for system in ["raw", "guard"] {
            var previous = "notify.\(system).1-observer"
            for count in Self.observerCounts {
                let name = Self.perNotificationName(system, count)
                specs.append(
                    FigureSpec(
                        name, .nanoseconds, baseline: previous,
                        "\(system) set with \(count) observers ÷ \(count); ratio ≤ 1 means linear or better"))
                previous = name
            }
        }
        return specs
    }

    static func name(_ system: String, _ count: Int) -> String {
        "notify.\(system).\(count)-observers"
    }

    static func perNotificationName(_ system: String, _ count: Int) -> String {
        "notify.\(system).per-notification.\(count)-observers"
    }

    func measure(_ context: BenchContext) -> [String: Double] {
        let notificationsPerRound = context.scale.pick(full: 100_000, quick: 20_000)
        var values: [String: Double] = [:]
        for count in Self.observerCounts {
            let names = [
                Self.name("raw", count), Self.name("guard", count),
                Self.perNotificationName("raw", count), Self.perNotificationName("guard", count),
            ]
            guard names.contains(where: { context.wants($0) }) else { continue }
            let iterations = max(20, notificationsPerRound / count)
            let tallies = (0..<count).map { _ in Tally() }
            let raw = BenchModel()
            for tally in tallies {
                raw.addObserver(tally, forKeyPath: BenchModel.key, options: [.new, .old])
            }
            let guarded = BenchModel()
            let controllers = tallies.map { $0.makeController() }
            for controller in controllers {
                Tally.observe(guarded, with: controller)
            }
            let medians = context.sampler.medians([
                (Self.name("raw", count), { SetLoops.nanosecondsPerSet(raw, iterations: iterations) }),
                (Self.name("guard", count), { SetLoops.nanosecondsPerSet(guarded, iterations: iterations) }),
            ])
            for tally in tallies {
                raw.removeObserver(tally, forKeyPath: BenchModel.key)
            }
            controllers.forEach { $0.unobserveAll() }
            BlackHole.consume(tallies.reduce(0) { $0 &+ $1.total })
            for system in ["raw", "guard"] {
                let perSet = medians[Self.name(system, count)]!
                values[Self.name(system, count)] = perSet
                values[Self.perNotificationName(system, count)] = perSet / Double(count)
            }
        }
        return values
    }
}
