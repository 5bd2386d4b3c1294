import Foundation

/// `--filter NAME`: selects the figures whose name contains `NAME`, or matches it as a regular expression (when it is
/// one: text that is not a valid regular expression selects by substring alone).
struct FigureFilter {
    /// The text given.
    let text: String
    private let expression: NSRegularExpression?

    /// A filter for `text`, which must not be empty.
    init(_ text: String) throws {
        guard !text.isEmpty else { throw UsageError("--filter needs a figure name or a regular expression") }
        self.text = text
        self.expression = try? NSRegularExpression(pattern: text)
    }

    /// Whether the text is a valid regular expression (otherwise it selects by substring only).
    var isRegularExpression: Bool { expression != nil }

    /// Whether `name` is selected.
    func matches(_ name: String) -> Bool {
        if name.contains(text) { return true }
        guard let expression else { return false }
        return expression.firstMatch(in: name, range: NSRange(name.startIndex..., in: name)) != nil
    }

    /// Why the filter selected no figure, for the usage error: no name contains the text, and it either matches
    /// none as a regular expression or is not one (then saying so, since that is likely what went wrong).
    var selectsNothing: String {
        if isRegularExpression {
            return "--filter '\(text)' selects no figure: no figure name contains it or matches it as a regular "
                + "expression; 'guard-stress bench --list' lists them"
        }
        return "--filter '\(text)' selects no figure: no figure name contains it, and it is not a valid regular "
            + "expression (check its brackets, parentheses and escapes); 'guard-stress bench --list' lists them"
    }
}
