/// What the runtime does when it detects a ``KVOMisuse``.
public enum MisusePolicy: String, Sendable, Hashable, CaseIterable {
    /// Stop the process with Foundation's message (``KVOMisuse/terminationMessage``,
    /// `*** Terminating app due to uncaught exception …`), exactly like the real crash. The default, and the only
    /// policy whose words say the app terminates.
    case trap
    /// Record the misuse (see ``RuntimeMonitor/reportedMisuses``), count it, and continue. The stress harness uses this to
    /// count the crashes that would have happened. Writes nothing.
    case report
    /// Write one line to standard error, count and record it (like ``report``), and continue. The line is
    /// `KVOGuard runtime misuse: ` and the misuse's ``KVOMisuse/description`` (Foundation's exception name and reason,
    /// then `(continuing under the misuse policy)`); it never says the app terminates. It is written as
    /// ``StandardErrorSink`` writes one: lost, never waited for, when standard error cannot take it now.
    case log
}
