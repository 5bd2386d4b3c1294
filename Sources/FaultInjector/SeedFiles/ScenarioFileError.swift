/// Why a scenario file (a text scenario or a JSON seed file) could not be used. Every case reads as one sentence
/// for a person; a mistake in a text scenario names its line and column the way compilers do
/// (`race.scenario:4:12: unknown option "inital" (expected one of: initial, new, old, prior)`).
public enum ScenarioFileError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The file cannot be read (`reason`: `no such file`, `is a directory`, `permission denied`, ...).
    case unreadable(path: String, reason: String)
    /// The file holds nothing but blanks.
    case empty(path: String)
    /// A text scenario with a mistake at `line` and `column` (both from 1); `source` is that line as written.
    case syntax(path: String, line: Int, column: Int, message: String, source: String)
    /// A JSON seed file that is not a valid one.
    case seedFile(SeedFileError)

    /// One line: `PATH:LINE:COLUMN: message` for a mistake in a text scenario.
    public var description: String {
        switch self {
        case .unreadable(let path, let reason): return "cannot read \(path): \(reason)"
        case .empty(let path): return "\(path) is empty: a scenario needs at least a `worker 0:` line and an operation"
        case .syntax(let path, let line, let column, let message, _): return "\(path):\(line):\(column): \(message)"
        case .seedFile(let error): return error.description
        }
    }

    /// ``description``, and for a mistake in a text scenario the line as written with a caret under the column:
    ///
    /// ```
    /// race.scenario:4:22: unknown option "inital" (did you mean "initial"?) (expected one of: ...)
    ///     4 |   observe c0 o0 k0 [inital]
    ///       |                     ^
    /// ```
    public var detailedDescription: String {
        guard case .syntax(_, let line, let column, _, let source) = self else { return description }
        let number = String(line)
        let gutter = String(repeating: " ", count: number.count)
        // Tabs stay tabs under the caret, so it lines up however wide the terminal shows them.
        let lead = source.prefix(max(0, column - 1)).map { $0 == "\t" ? "\t" : " " }.joined()
        return description + "\n    \(number) | \(source)\n    \(gutter) | \(lead)^"
    }
}
