import FaultInjector

/// Prints a ``RunStory`` as text: a header, one column per worker and one row per interesting step (steps in
/// which nothing but locks and schedule points happened are left out, and long quiet stretches are marked), each
/// violation marked on its row and explained below.
public struct StoryText: Sendable {
    /// The story.
    public let story: RunStory
    /// At most this many rows; longer stories keep their start, the rows around each violation and their end.
    /// `nil`: every row.
    public var maximumRows: Int? = 120
    /// The width a line aims for (a long text runs past its column into the empty ones on its right).
    public var width = 120

    /// A printer for `story`.
    public init(story: RunStory) {
        self.story = story
    }

    /// The whole text.
    public var text: String {
        lines.joined(separator: "\n")
    }

    /// The text, line by line.
    public var lines: [String] {
        annotatedLines.map(\.text)
    }

    /// ``lines``, each with the numbers of the violations pinned to it (table rows only), for the page's anchors.
    var annotatedLines: [(text: String, violations: [Int])] {
        var output = headerLines.map { ($0, [Int]()) }
        output.append(("", []))
        output += table
        output.append(("", []))
        output += violationLines.map { ($0, [Int]()) }
        return output
    }

    private var headerLines: [String] {
        let header = story.header
        var lines = [
            "\(header.title): target \(header.target), runner \(header.runner), seed \(header.seed), "
                + "\(header.workers) \(header.workers == 1 ? "worker" : "workers"), "
                + "\(header.operations) \(header.operations == 1 ? "operation" : "operations")",
            header.provenance,
            "failure: " + (header.signature.isEmpty ? "none (the oracle held in this run)" : header.signature)
                + header.comparedWithRecording,
            StoryGlyph.legend,
        ]
        if header.workers > 12 || story.lines.count > 400 {
            lines.append("(a large run: shrink it first with `guard-stress shrink` for a story that fits a screen)")
        }
        return lines
    }

    // MARK: The table

    private var columnWidth: Int {
        let workers = max(1, story.header.workers)
        return max(24, min(48, (width - 8) / workers))
    }

    private var table: [(text: String, violations: [Int])] {
        let workers = max(1, story.header.workers)
        let column = columnWidth
        let stepTitle = story.stepsAreScheduleSteps ? "step" : "order"
        var header = pad(stepTitle, 6, right: true) + " │ "
        for worker in 0..<workers {
            header += worker == workers - 1 ? "worker \(worker)" : pad("worker \(worker)", column) + " │ "
        }
        var rule = String(repeating: "─", count: 7) + "┼"
        for worker in 0..<workers {
            rule += String(repeating: "─", count: column + (worker == workers - 1 ? 1 : 2)) + (worker == workers - 1 ? "" : "┼")
        }
        var rows: [(text: String, violations: [Int])] = [(header, []), (rule, [])]
        let shown = shownRows()
        var previous: Int?
        var previousStep: Int?
        for index in shown {
            if let previous, index > previous + 1 {
                rows.append((pad("⋯", 6, right: true) + " │ ⋯ \(index - previous - 1) rows left out (--full shows them)", []))
                previousStep = nil
            }
            let line = story.lines[index]
            if let step = line.step, let previousStep, step - previousStep >= Self.quietGap {
                rows.append((pad("┆", 6, right: true) + " │ " + quietNote(step - previousStep - 1), []))
            }
            rows.append((render(line, workers: workers, column: column), line.violations))
            previous = index
            if let step = line.step { previousStep = step }
        }
        return rows
    }

    /// Rows further apart than this many steps get a note that the steps between were quiet.
    static let quietGap = 25

    private func quietNote(_ steps: Int) -> String {
        "… \(steps) quiet \(steps == 1 ? "step" : "steps") (locks and schedule points only)"
    }

    private func render(_ line: RunStory.Line, workers: Int, column: Int) -> String {
        let marks = line.violations.isEmpty ? ""
            : "   \(StoryGlyph.violation) " + line.violations.map { number in "\(StoryGlyph.misuse)\(number) \(story.violations[number - 1].kind)" }.joined(separator: ", ")
        guard line.worker >= 0 else {
            return pad("end", 6, right: true) + " │ " + line.text + marks
        }
        var row = pad(line.step.map(String.init) ?? "", 6, right: true) + " │ "
        for _ in 0..<min(line.worker, workers - 1) { row += String(repeating: " ", count: column) + " │ " }
        return row + String(repeating: "  ", count: line.depth) + line.text + marks
    }

    /// Which rows to print: all, or for a long story its start, the rows around each violation, and its end.
    private func shownRows() -> [Int] {
        let count = story.lines.count
        guard let maximumRows, count > maximumRows else { return Array(0..<count) }
        var keep = Set(0..<min(count, maximumRows / 4))
        keep.formUnion(max(0, count - 8)..<count)
        for violation in story.violations {
            keep.formUnion(max(0, violation.line - 8)...min(count - 1, violation.line + 3))
        }
        return keep.sorted()
    }

    // MARK: Violations

    private var violationLines: [String] {
        guard !story.violations.isEmpty else { return ["The oracle held: no violation to point at."] }
        var lines: [String] = []
        for violation in story.violations {
            let line = story.lines[violation.line]
            let place = line.step.map { step in
                (story.stepsAreScheduleSteps ? "step \(step)" : "event \(step)") + ", worker \(line.worker)"
            } ?? "the end of the run"
            lines.append("\(StoryGlyph.misuse)\(violation.number) \(violation.kind) (at \(place)): \(violation.message)")
        }
        if story.violationCount > story.violations.count {
            lines.append("(\(story.violationCount) violations in all; the oracle keeps the first few of each kind in full)")
        }
        return lines
    }

    private func pad(_ text: String, _ width: Int, right: Bool = false) -> String {
        let count = text.count
        guard count < width else { return text }
        let padding = String(repeating: " ", count: width - count)
        return right ? padding + text : text + padding
    }
}
