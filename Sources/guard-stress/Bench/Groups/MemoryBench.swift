import GuardCore

/// Group 7: heap bytes per registration (the first on each of many objects; the guard's figure includes the
/// runtime's share), and what repeated observe/unobserve cycles leave behind.
struct MemoryBench: BenchGroup {
    let title = "7. Memory"

    let figures = [
        FigureSpec(
            "memory.raw.bytes-per-registration", .bytes,
            "heap bytes per raw registration, the first on each of many objects (100,000; 10,000 with --quick)"),
        FigureSpec(
            "memory.guard.bytes-per-registration", .bytes, baseline: "memory.raw.bytes-per-registration",
            "heap bytes per guard registration (guard + runtime), the first on each of as many objects"),
        FigureSpec(
            "memory.guard.resident-growth", .percent,
            "resident memory growth across 10^7 cycles (10^5 with --quick) of new object, observe, unobserve, release"),
        FigureSpec(
            "memory.guard.heap-growth", .bytes,
            "heap bytes in use after those cycles minus before them"),
    ]

    func measure(_ context: BenchContext) -> [String: Double] {
        let objects = context.scale.pick(full: 100_000, quick: 10_000)
        var values = context.medians(
            ifWanted: [
                ("memory.raw.bytes-per-registration", { Self.rawBytesPerRegistration(objects: objects) }),
                ("memory.guard.bytes-per-registration", { Self.guardBytesPerRegistration(objects: objects) }),
            ],
            sampler: context.scale.sampler(fullRepetitions: 3, quickRepetitions: 1))
        if context.wants("memory.guard.resident-growth", "memory.guard.heap-growth") {
            let cycles = context.scale.pick(full: 10_000_000, quick: 100_000)
            let growth = Self.growth(cycles: cycles)
            values["memory.guard.resident-growth"] = growth.residentPercent
            values["memory.guard.heap-growth"] = growth.heapBytes
        }
        return values
    }

    private static func rawBytesPerRegistration(objects: Int) -> Double {
        let models = (0..<objects).map { _ in BenchModel() }
        let observer = Tally()
        let before = MemoryProbe.heapBytesInUse
        for model in models {
            model.addObserver(observer, forKeyPath: BenchModel.key, options: [.new, .old])
        }
        let after = MemoryProbe.heapBytesInUse
        for model in models {
            model.removeObserver(observer, forKeyPath: BenchModel.key)
        }
        return Double(after - before) / Double(objects)
    }

    private static func guardBytesPerRegistration(objects: Int) -> Double {
        let models = (0..<objects).map { _ in BenchModel() }
        let tally = Tally()
        let controller = tally.makeController()
        let before = MemoryProbe.heapBytesInUse
        for model in models {
            Tally.observe(model, with: controller)
        }
        let after = MemoryProbe.heapBytesInUse
        controller.unobserveAll()
        return Double(after - before) / Double(objects)
    }

    /// Runs `cycles` observe/unobserve cycles on fresh objects through one controller, after a tenth as many to warm
    /// up, and returns the resident memory growth (percent) and the heap growth (bytes) across them. One long run,
    /// not a median: growth is what accumulates over the whole run.
    private static func growth(cycles: Int) -> (residentPercent: Double, heapBytes: Double) {
        let tally = Tally()
        let controller = tally.makeController()
        func cycle(_ count: Int) {
            for _ in 0..<count {
                let model = BenchModel()
                Tally.observe(model, with: controller)
                controller.unobserve(model, keyPath: BenchModel.key)
            }
        }
        cycle(max(10_000, cycles / 10))
        let residentBefore = MemoryProbe.residentBytes
        let heapBefore = MemoryProbe.heapBytesInUse
        cycle(cycles)
        let residentAfter = MemoryProbe.residentBytes
        let heapAfter = MemoryProbe.heapBytesInUse
        withExtendedLifetime(controller) {}
        let percent = residentBefore > 0 ? Double(residentAfter - residentBefore) / Double(residentBefore) * 100 : 0
        return (percent, Double(heapAfter - heapBefore))
    }
}
