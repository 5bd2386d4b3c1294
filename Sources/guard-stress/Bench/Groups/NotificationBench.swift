/// Group 2: one observer with `.new` / `.old`: the raw runtime against the floor, and the guard against the raw
/// runtime.
struct NotificationBench: BenchGroup {
    let title = "2. Notification, one observer, .new/.old"

    let figures = [
        FigureSpec(
            "notify.floor", .nanoseconds,
            "store + uncontended lock/unlock + dictionary lookup + closure call with boxed old/new"),
        FigureSpec(
            "notify.raw.1-observer", .nanoseconds, baseline: "notify.floor",
            "one set notifying one raw runtime observer (.new/.old)"),
        FigureSpec(
            "notify.guard.1-observer", .nanoseconds, baseline: "notify.raw.1-observer",
            "one set notifying one guard handler (.new/.old)"),
    ]

    func measure(_ context: BenchContext) -> [String: Double] {
        let iterations = context.scale.pick(full: 50_000, quick: 10_000)
        let tally = Tally()
        let floor = NotificationFloor(tally: tally)
        let raw = BenchModel()
        raw.addObserver(tally, forKeyPath: BenchModel.key, options: [.new, .old])
        let guarded = BenchModel()
        let controller = tally.makeController()
        Tally.observe(guarded, with: controller)
        defer {
            raw.removeObserver(tally, forKeyPath: BenchModel.key)
            controller.unobserveAll()
            BlackHole.consume(tally.total)
        }
        return context.sampler.medians([
            ("notify.floor", { Self.nanosecondsPerSet(floor, iterations: iterations) }),
            ("notify.raw.1-observer", { SetLoops.nanosecondsPerSet(raw, iterations: iterations) }),
            ("notify.guard.1-observer", { SetLoops.nanosecondsPerSet(guarded, iterations: iterations) }),
        ])
    }

    private static func nanosecondsPerSet(_ floor: NotificationFloor, iterations: Int) -> Double {
        let step = BlackHole.opaque(3)
        let key = BenchModel.key
        let elapsed = Stopwatch.nanoseconds {
            var value = floor.value
            for _ in 0..<iterations {
                value &+= step
                floor.set(value, key: key)
            }
        }
        return elapsed / Double(iterations)
    }
}
