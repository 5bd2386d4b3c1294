/// guard-stress's exit codes, the same for every subcommand.
enum ExitCode: Int32 {
    /// The oracle held.
    case passed = 0
    /// The oracle was violated (a reproduced failure counts).
    case violated = 1
    /// Bad usage, or a bad input file.
    case badInput = 2
    /// `explore` could not give an answer: the exploration is not a proof (a re-execution diverged, a run was past its
    /// step limit or blocked outside the scheduler's control, an execution limit was hit).
    case notAProof = 3
}
