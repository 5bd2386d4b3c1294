import Foundation
import GuardCore

/// Standard error output (never stopping the process if it cannot be written), and whether it is a terminal (for the
/// live progress line).
enum Terminal {
    /// Whether standard error is a terminal.
    static let isInteractive = isatty(STDERR_FILENO) == 1

    /// Writes `text` and a newline to standard error.
    static func printError(_ text: String) {
        StandardError.write(text + "\n")
    }

    /// Rewrites the current terminal line on standard error.
    static func rewriteLine(_ text: String) {
        StandardError.write("\r\u{1B}[2K" + text)
    }

    /// Ends the rewritten line.
    static func endLine() {
        StandardError.write("\n")
    }
}
