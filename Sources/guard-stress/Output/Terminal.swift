import Foundation

/// Standard error output, and whether it is a terminal (for the live progress line).
enum Terminal {
    /// Whether standard error is a terminal.
    static let isInteractive = isatty(STDERR_FILENO) == 1

    /// Writes `text` and a newline to standard error.
    static func printError(_ text: String) {
        FileHandle.standardError.write(Data((text + "\n").utf8))
    }

    /// Rewrites the current terminal line on standard error.
    static func rewriteLine(_ text: String) {
        FileHandle.standardError.write(Data(("\r\u{1B}[2K" + text).utf8))
    }

    /// Ends the rewritten line.
    static func endLine() {
        FileHandle.standardError.write(Data("\n".utf8))
    }
}
