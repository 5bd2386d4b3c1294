/// Where the rounds of a campaign (and the runs of a replay) execute.
///
/// In this process (``inProcess``), a crash, a trap or a hang of the system under test ends the whole campaign.
/// In child processes (``childProcesses(_:)``), each is a verdict of its round: `crash(SIGSEGV)`, `trap` or
/// `deadlock`, with the round's seed file, and the campaign goes on in a fresh process. The default, ``automatic``,
/// picks child processes when this program serves rounds (it set ``roundServer``), else this process.
public enum RoundIsolation: Sendable {
    /// Rounds run in the calling process (any ``SystemUnderTest`` works; what ``automatic`` is in a program that
    /// does not serve rounds).
    case inProcess
    /// Rounds run in child processes that serve them with ``RoundServer`` (what ``automatic`` is in a program that
    /// set ``roundServer``, as `guard-stress` does). The target must be one the child can make by name:
    /// `guard-stress` makes the built-in ones; for a target of your own, the child is a program of yours serving the
    /// same ``TargetFactory`` as ``Campaign/Settings/makeTarget``. Starting the first child makes this process ignore
    /// SIGPIPE (a write to a child that died must fail, not end the parent).
    case childProcesses(ChildProcessSettings)

    /// The child-process settings, or `nil` in process.
    public var childProcessSettings: ChildProcessSettings? {
        if case .childProcesses(let settings) = self { return settings }
        return nil
    }
}

/// How rounds run in child processes.
public struct ChildProcessSettings: Sendable {
    /// The program to start: one that calls ``RoundServer/serve(makeTarget:)`` when given ``arguments``.
    public var executable: String
    /// Its arguments (for `guard-stress`: the hidden subcommand that serves rounds).
    public var arguments: [String]
    /// Rounds one process serves before a fresh one takes over; `nil` picks per runner: 1 for the chaos runner
    /// (a fresh process every round, so a crash belongs to exactly one round), ``controlledRoundsPerProcess`` for the
    /// controlled runner (its rounds take milliseconds, a process start as long as several of them). A process
    /// that crashed, trapped or had to abandon blocked workers is always replaced.
    public var roundsPerProcess: Int?
    /// Seconds without any finished operation after which a chaos round counts as deadlocked (the controlled
    /// runner knows at once when every worker is blocked, and after its own two seconds when one is blocked
    /// outside its control).
    public var stallTimeout = 3.0
    /// Seconds the parent waits for a round's answer beyond the stall timeout (plus 0.2 ms per operation) before
    /// it kills the process: see ``answerTimeout(operations:)``.
    public var answerAllowance = 30.0
    /// Seconds a new process may take to start and say it is ready.
    public var startTimeout = 30.0
    /// Added to the environment the children inherit (`SWIFT_DETERMINISTIC_HASHING=1` is always set).
    public var environment: [String: String] = [:]

    /// The default for ``roundsPerProcess`` with the controlled runner.
    public static let controlledRoundsPerProcess = 500

    /// Children running `executable arguments...`.
    public init(executable: String, arguments: [String]) {
        self.executable = executable
        self.arguments = arguments
    }

    /// Rounds per process for `runner`.
    public func roundsPerProcess(for runner: RunnerChoice) -> Int {
        max(1, roundsPerProcess ?? (runner == .chaos ? 1 : Self.controlledRoundsPerProcess))
    }

    /// How long the parent waits for a round's answer before it kills the process: the safety net behind the
    /// child's own watchdogs, for a hang they cannot see (in the teardown, or in the oracle). The stall timeout,
    /// plus ``answerAllowance`` (30 seconds), plus 0.2 ms per operation, counted from the round's last progress: the
    /// child sends a heartbeat whenever its workers moved, so a long round on a busy machine is waited for as long
    /// as it moves, and the verdict does not depend on the machine's load.
    public func answerTimeout(operations: Int) -> Double {
        stallTimeout + answerAllowance + Double(operations) * 0.000_2
    }
}
