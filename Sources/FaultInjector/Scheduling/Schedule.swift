/// The schedule a controlled run took: at every step, the point the running worker had reached and the worker
/// chosen to run next. Following it again (``ReplayStrategy``) repeats the run exactly.
///
/// Its text form has two strings: the chosen workers run-length encoded (`"0*12 1 2*3 0"`: worker 0 for twelve
/// steps, then 1 for one, 2 for three, 0 for one) and one ``SchedulePoint/code`` per step (`"soaarr..."`).
public struct Schedule: Sendable, Hashable {
    /// The worker chosen at each step.
    public private(set) var workers: [Int] = []
    /// The point reached at each step.
    public private(set) var points: [SchedulePoint] = []

    /// An empty schedule.
    public init() {}

    /// A schedule from its steps; `workers` and `points` must have the same length.
    public init(workers: [Int], points: [SchedulePoint]) {
        precondition(workers.count == points.count, "a schedule needs one point per chosen worker")
        self.workers = workers
        self.points = points
    }

    /// Steps taken.
    public var count: Int { workers.count }

    /// Whether no step was taken.
    public var isEmpty: Bool { workers.isEmpty }

    /// How often the running worker changed: steps whose chosen worker differs from the previous step's.
    public var switches: Int {
        zip(workers, workers.dropFirst()).reduce(0) { $0 + ($1.0 == $1.1 ? 0 : 1) }
    }

    /// Records one step.
    public mutating func append(worker: Int, at point: SchedulePoint) {
        workers.append(worker)
        points.append(point)
    }

    /// The first `count` steps.
    public func prefix(_ count: Int) -> Schedule {
        Schedule(workers: Array(workers.prefix(count)), points: Array(points.prefix(count)))
    }

    // MARK: Text form

    /// The chosen workers, run-length encoded: `"0*12 1 2*3"`.
    public var workersText: String {
        var parts: [String] = []
        var index = 0
        while index < workers.count {
            var end = index + 1
            while end < workers.count, workers[end] == workers[index] { end += 1 }
            parts.append(end - index == 1 ? "\(workers[index])" : "\(workers[index])*\(end - index)")
            index = end
        }
        return parts.joined(separator: " ")
    }

    /// One point code per step.
    public var pointsText: String {
        String(points.map(\.code))
    }

    /// Parses the text form; the error says which part is wrong.
    public init(workersText: String, pointsText: String) throws(ScheduleFormatError) {
        var workers: [Int] = []
        for token in workersText.split(separator: " ", omittingEmptySubsequences: true) {
            let parts = token.split(separator: "*", omittingEmptySubsequences: false)
            guard (1...2).contains(parts.count), let worker = Int(parts[0]), worker >= 0 else {
                throw ScheduleFormatError("\"\(token)\" is not a worker number or a run like \"2*5\"")
            }
            var length = 1
            if parts.count == 2 {
                guard let parsed = Int(parts[1]), parsed >= 1 else {
                    throw ScheduleFormatError("\"\(token)\" has a run length that is not a positive whole number")
                }
                length = parsed
            }
            // `length` may be as large as `Int.max`: compare against the room left, which cannot overflow.
            guard length <= Self.maximumSteps - workers.count else {
                throw ScheduleFormatError("the schedule is longer than \(Self.maximumSteps) steps")
            }
            workers.append(contentsOf: repeatElement(worker, count: length))
        }
        var points: [SchedulePoint] = []
        points.reserveCapacity(workers.count)
        for (offset, character) in pointsText.enumerated() {
            guard let point = SchedulePoint(code: character) else {
                throw ScheduleFormatError("step \(offset) has the point code \"\(character)\", which names no point")
            }
            points.append(point)
        }
        guard points.count == workers.count else {
            throw ScheduleFormatError("it lists \(workers.count) chosen workers but \(points.count) points")
        }
        self.init(workers: workers, points: points)
    }

    /// The longest schedule a file may hold.
    public static let maximumSteps = 100_000_000
}

/// Why a schedule's text form could not be read: one sentence.
public struct ScheduleFormatError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What is wrong.
    public let description: String

    init(_ description: String) {
        self.description = description
    }
}
