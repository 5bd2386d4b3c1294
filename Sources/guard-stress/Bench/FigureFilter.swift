import Foundation

/// `--filter NAME`: selects the figures whose name contains `NAME`, or matches it as a regular expression.
struct FigureFilter {
    private let text: String
    private let expression: NSRegularExpression?

    /// A filter for `text`, which must not be empty. Text that is not a valid regular expression still filters
    /// by substring.
    init(_ text: String) throws {
        guard !text.isEmpty else { throw UsageError("--filter needs a figure name or a regular expression") }
        self.text = text
        self.expression = try? NSRegularExpression(pattern: text)
    }

    /// Whether `name` is selected.
    func matches(_ name: String) -> Bool {
        if name.contains(text) { return true }
        guard let expression else { return false }
        return expression.firstMatch(in: name, range: NSRange(name.startIndex..., in: name)) != nil
    }
}
