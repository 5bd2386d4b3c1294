/// The timed loops that set a model's value with values the optimizer cannot predict.
enum SetLoops {
    /// Nanoseconds per set over `iterations` sets of `model.value`.
    static func nanosecondsPerSet(_ model: BenchModel, iterations: Int) -> Double {
        let step = BlackHole.opaque(3)
        let elapsed = Stopwatch.nanoseconds { set(model, iterations: iterations, step: step) }
        BlackHole.consume(model.value)
        return elapsed / Double(iterations)
    }

    /// Sets `model.value` `iterations` times, to a different value each time.
    @inline(never)
    static func set(_ model: BenchModel, iterations: Int, step: Int) {
        var value = model.value
        for _ in 0..<iterations {
            value &+= step
            model.value = value
        }
    }

    /// The same under `mutex`, as an app does for an object several threads set.
    @inline(never)
    static func set(_ model: BenchModel, iterations: Int, step: Int, under mutex: BenchMutex) {
        var value = 0
        for _ in 0..<iterations {
            value &+= step
            mutex.lock()
            model.value = value
            mutex.unlock()
        }
    }
}
