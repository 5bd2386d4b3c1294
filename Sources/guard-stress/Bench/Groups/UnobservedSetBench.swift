/// Group 1: a set of an `@Observed` property nobody observes, against a set of a plain stored property through a
/// setter the compiler may not inline; and the same for a read, which every app does more often than a set.
struct UnobservedSetBench: BenchGroup {
    let title = "1. Set (and read) of a property nobody observes"

    let figures = [
        FigureSpec(
            "unobserved-set.plain-setter", .nanoseconds,
            "one set of a plain stored Int through an @inline(never) setter"),
        FigureSpec(
            "unobserved-set.observed-property", .nanoseconds, baseline: "unobserved-set.plain-setter",
            "one set of an @Observed Int on a KVOObject nobody observes, through an @inline(never) function like the baseline"),
        FigureSpec(
            "unobserved-get.plain-getter", .nanoseconds,
            "one read of a plain stored Int through an @inline(never) getter (+ one store of the running sum)"),
        FigureSpec(
            "unobserved-get.observed-property", .nanoseconds, baseline: "unobserved-get.plain-getter",
            "one read of an @Observed Int on a KVOObject nobody observes, through an @inline(never) getter like the "
                + "baseline (+ the same store)"),
    ]

    func measure(_ context: BenchContext) -> [String: Double] {
        let iterations = context.scale.pick(full: 5_000_000, quick: 1_000_000)
        let observable = BenchModel()
        let plain = PlainModel()
        let sets = context.medians(ifWanted: [
            ("unobserved-set.plain-setter", { Self.time(iterations) { Self.setPlain(plain, $0, $1) } }),
            ("unobserved-set.observed-property", { Self.time(iterations) { Self.setObserved(observable, $0, $1) } }),
        ])
        let reads = context.medians(ifWanted: [
            ("unobserved-get.plain-getter", { Self.time(iterations) { Self.getPlain(plain, $0, $1) } }),
            ("unobserved-get.observed-property", { Self.time(iterations) { Self.getObserved(observable, $0, $1) } }),
        ])
        let values = sets.merging(reads) { _, new in new }
        BlackHole.consume(observable.value &+ plain.value)
        return values
    }

    /// Nanoseconds per iteration of `loop(iterations, step)`, with a step the optimizer cannot know.
    private static func time(_ iterations: Int, _ loop: (Int, Int) -> Void) -> Double {
        let step = BlackHole.opaque(7)
        return Stopwatch.nanoseconds { loop(iterations, step) } / Double(iterations)
    }

    /// Sets through ``SetLoops/setOnce(_:_:)``, out of line like the plain setter.
    @inline(never)
    private static func setObserved(_ model: BenchModel, _ iterations: Int, _ step: Int) {
        var value = 0
        for _ in 0..<iterations {
            value &+= step
            SetLoops.setOnce(model, value)
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

    @inline(never)
    private static func getObserved(_ model: BenchModel, _ iterations: Int, _ step: Int) {
        var sum = step
        let sink = BlackHole.word
        for _ in 0..<iterations {
            sum &+= model.readValue()
            sink.store(UInt64(bitPattern: Int64(sum)), ordering: .relaxed)
        }
    }

    @inline(never)
    private static func getPlain(_ model: PlainModel, _ iterations: Int, _ step: Int) {
        var sum = step
        let sink = BlackHole.word
        for _ in 0..<iterations {
            sum &+= model.readValue()
            sink.store(UInt64(bitPattern: Int64(sum)), ordering: .relaxed)
        }
    }
}
