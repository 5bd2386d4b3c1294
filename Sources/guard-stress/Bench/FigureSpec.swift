/// What a bench group promises to measure, known before anything runs (for `--list` and `--filter`).
struct FigureSpec: Equatable {
    /// The figure's name (see ``Figure/name``).
    let name: String
    /// The unit of its value.
    let unit: FigureUnit
    /// The figure it is compared with, if any; always one measured by the same group or an earlier one.
    let baseline: String?
    /// One line for people: what exactly one unit of the value is.
    let summary: String

    init(_ name: String, _ unit: FigureUnit, baseline: String? = nil, _ summary: String) {
        self.name = name
        self.unit = unit
        self.baseline = baseline
        self.summary = summary
    }
}

/// The units the bench reports in.
enum FigureUnit: String {
    /// Nanoseconds per operation (lower is better).
    case nanoseconds = "ns"
    /// Operations per second (higher is better).
    case operationsPerSecond = "ops/s"
    /// Controlled-runner schedules per second (higher is better).
    case schedulesPerSecond = "schedules/s"
    /// Explored executions per second (higher is better).
    case executionsPerSecond = "executions/s"
    /// Bytes.
    case bytes = "B"
    /// Percent.
    case percent = "%"
}
