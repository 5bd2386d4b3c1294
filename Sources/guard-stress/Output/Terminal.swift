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

/// `1,234,567`, `98.2k`, `2.5 s`.
enum Format {
    static func count(_ value: Int) -> String {
        let digits = String(value.magnitude)
        var grouped = ""
        for (offset, character) in digits.enumerated() {
            if offset > 0, (digits.count - offset) % 3 == 0 { grouped.append(",") }
            grouped.append(character)
        }
        return (value < 0 ? "-" : "") + grouped
    }

    static func rate(_ value: Double) -> String {
        value >= 1_000_000 ? String(format: "%.2fM", value / 1_000_000)
            : value >= 1_000 ? String(format: "%.1fk", value / 1_000) : String(format: "%.0f", value)
    }

    static func seconds(_ value: Double) -> String {
        String(format: "%.1f s", value)
    }
}
