/// What running rounds in child processes cost: processes started, their start-up, and the time spent passing
/// rounds to them and answers back, compared with the time the rounds themselves took.
public struct IsolationStatistics: Sendable, Codable, Equatable {
    /// Child processes started.
    public internal(set) var processesStarted = 0
    /// Processes that said they were ready.
    public internal(set) var processesReady = 0
    /// Seconds from starting each process to its saying it is ready, summed over the ready ones.
    public internal(set) var startupSeconds = 0.0
    /// Seconds the parent waited for a process to become ready, summed (less than ``startupSeconds`` when the
    /// next process started while a round was still running).
    public internal(set) var startupWaitSeconds = 0.0
    /// Rounds a child answered.
    public internal(set) var rounds = 0
    /// Seconds from sending each answered round to reading its answer, summed.
    public internal(set) var roundTripSeconds = 0.0
    /// Seconds the children reported spending on the rounds they answered, summed (run, teardown and oracle).
    public internal(set) var busySeconds = 0.0
    /// Processes that crashed, trapped, exited early or were killed for not answering.
    public internal(set) var processesLost = 0

    /// An empty tally.
    public init() {}

    /// This tally and `other` added up (the lanes of a campaign running rounds at once each keep their own).
    func adding(_ other: IsolationStatistics) -> IsolationStatistics {
        var sum = self
        sum.processesStarted += other.processesStarted
        sum.processesReady += other.processesReady
        sum.startupSeconds += other.startupSeconds
        sum.startupWaitSeconds += other.startupWaitSeconds
        sum.rounds += other.rounds
        sum.roundTripSeconds += other.roundTripSeconds
        sum.busySeconds += other.busySeconds
        sum.processesLost += other.processesLost
        return sum
    }

    /// Mean seconds from starting a process to its being ready.
    public var meanStartupSeconds: Double {
        processesReady > 0 ? startupSeconds / Double(processesReady) : 0
    }

    /// What isolation added per answered round, in seconds: waiting for processes to start, plus each round trip
    /// beyond the time the child spent on the round (sending the request, encoding and reading the answer).
    public var overheadPerRound: Double {
        rounds > 0 ? max(0, startupWaitSeconds + roundTripSeconds - busySeconds) / Double(rounds) : 0
    }

    /// Mean seconds a child spent on an answered round.
    public var meanRoundSeconds: Double {
        rounds > 0 ? busySeconds / Double(rounds) : 0
    }
}

/// Rounds could not be run in child processes (a child could not be started, or answered nonsense).
public struct IsolationError: Error, Sendable, CustomStringConvertible {
    /// What went wrong, as a sentence.
    public let description: String

    /// An error saying `description`.
    public init(description: String) {
        self.description = description
    }
}
