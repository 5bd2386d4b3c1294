/// What the runtime does when it detects a ``KVOMisuse``.
public enum MisusePolicy: String, Sendable, Hashable, CaseIterable {
    /// Stop the process with Foundation's message, exactly like the real crash. The default.
    case trap
    /// Record the misuse (see ``RuntimeMonitor/reportedMisuses``), count it, and continue. The stress harness uses this to
    /// count the crashes that would have happened.
    case report
    /// Write one line to standard error, count and record it (like ``report``), and continue. The line is written as
    /// ``StandardErrorSink`` writes one: lost, never waited for, when standard error cannot take it now.
    case log
}
