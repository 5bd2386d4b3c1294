/// guard-stress's exit codes, the same for every subcommand.
enum ExitCode: Int32 {
    /// The oracle held.
    case passed = 0
    /// The oracle was violated (a reproduced failure counts).
    case violated = 1
    /// Bad usage, or a bad input file.
    case badInput = 2
}
