/// What the explorer asks the controlled runner for: one execution, and which words (if any) to leave out of the
/// footprints.
struct ExplorationOptions: Sendable {
    /// The execution to run.
    var request: ExecutionRequest
    /// ``SharedWord`` raw values (or ``ObjectWord/lock``) whose accesses are not recorded; only tests leave any out.
    var omittedWords: Set<UInt8> = []
}

/// An explored controlled run's own record, beside its ``RunRecording``: the session that chose, the steps it
/// recorded and the clock's ticks at each step's end.
final class ExploredRun: @unchecked Sendable {
    let session: ExplorationSession
    /// The clock's tick count when the run ended (every tick taken, the teardown's included).
    private(set) var ticksTaken: UInt64 = 0
    /// Whether the run was abandoned for a deadlock among announced locks.
    private(set) var deadlockAmongLocks = false

    init(session: ExplorationSession) {
        self.session = session
    }

    /// Called once the workers stopped.
    func finish(ticksTaken: UInt64, deadlockAmongLocks: Bool) {
        self.ticksTaken = ticksTaken
        self.deadlockAmongLocks = deadlockAmongLocks
    }

    var recorder: StepRecorder { session.recorder }
}
