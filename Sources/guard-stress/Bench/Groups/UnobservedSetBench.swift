/// Group 1: a set of an `@Observed` property nobody observes, against a set of a plain stored property through a
/// setter the compiler may not inline.
struct UnobservedSetBench: BenchGroup {
    let title = "1. Set of a property nobody observes"

    let figures = [
        FigureSpec(
            "unobserved-set.plain-setter", .nanoseconds,
            "one set of a plain stored Int through an @inline(never) setter"),
        FigureSpec(
            "unobserved-set.observed-property", .nanoseconds, baseline: "unobserved-set.plain-setter",
            "one set of an @Observed Int on a KVOObject nobody observes"),
    ]

    func measure(_ context: BenchContext) -> [String: Double] {
        let iterations = context.scale.pick(full: 20_000_000, quick: 2_000_000)
        let observable = BenchModel()
        let plain = PlainModel()
        let values = context.sampler.medians([
            ("unobserved-set.plain-setter", { Self.time(iterations) { Self.setPlain(plain, $0, $1) } }),
            ("unobserved-set.observed-property", { Self.time(iterations) { Self.setObserved(observable, $0, $1) } }),
        ])
        BlackHole.consume(observable.value &+ plain.value)
        return values
    }

    /// Nanoseconds per iteration of `loop(iterations, step)`, with a step the optimizer cannot know.
    private static func time(_ iterations: Int, _ loop: (Int, Int) -> Void) -> Double {
        let step = BlackHole.opaque(7)
        return Stopwatch.nanoseconds { loop(iterations, step) } / Double(iterations)
    }

    @inline(never)
    private static func setObserved(_ model: BenchModel, _ iterations: Int, _ step: Int) {
        var value = 0
        for _ in 0..<iterations {
            value &+= step
            model.value = value
        }
    }

    @inline(never)
    private static func setPlain(_ model: PlainModel, _ iterations: Int, _ step: Int) {
        var value = 0
        for _ in 0..<iterations {
            value &+= step
            model.setValue(value)
        }
    }
}
