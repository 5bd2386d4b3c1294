/// The read loops the bench times: reads of an `@Observed` property, each out of line like the plain getter they are
/// compared with.
enum ReadLoops {
    /// Reads `model.value` `iterations` times through ``BenchModel/readValue()`` and returns the running sum (for the
    /// caller to consume, so no read is dropped).
    @inline(never)
    static func read(_ model: BenchModel, iterations: Int, step: Int) -> Int {
        var sum = step
        for _ in 0..<iterations {
            sum &+= model.readValue()
        }
        return sum
    }
}
