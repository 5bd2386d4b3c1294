/// The timed loops that set a model's value with values the optimizer cannot predict.
enum SetLoops {
    /// Nanoseconds per set over `iterations` sets of `model.value`.
    static func nanosecondsPerSet(_ model: BenchModel, iterations: Int) -> Double {
        let step = BlackHole.opaque(3)
        let elapsed = Stopwatch.nanoseconds { set(model, iterations: iterations, step: step) }
        BlackHole.consume(model.value)
        return elapsed / Double(iterations)
    }

    /// Sets `model.value` `iterations` times, to a different value each time, each set through ``setOnce(_:_:)``.
    @inline(never)
    static func set(_ model: BenchModel, iterations: Int, step: Int) {
        var value = model.value
        for _ in 0..<iterations {
            value &+= step
            setOnce(model, value)
        }
    }

    /// One set of `model.value`, kept out of line as an app's sets are spread over its code. Inlined into a timing
    /// loop, the optimizer may sink the stores when nobody observes (nothing happens in between) and time a loop that
    /// stores once.
    @inline(never)
    static func setOnce(_ model: BenchModel, _ value: Int) {
        model.value = value
    }

    /// The same under `mutex`, as an app does for an object several threads set.
    @inline(never)
    static func set(_ model: BenchModel, iterations: Int, step: Int, under mutex: BenchMutex) {
        var value = 0
        for _ in 0..<iterations {
            value &+= step
            mutex.lock()
            setOnce(model, value)
            mutex.unlock()
        }
    }
}
