import Foundation

/// Renders bench figures as a table for people: one section per group, one row per figure with its value, unit,
/// and ratio to its baseline.
enum BenchTable {
    static func render(_ sections: [(title: String, figures: [Figure])], heading: [String]) -> String {
        let nameWidth = max(40, sections.flatMap { $0.figures.map(\.name.count) }.max() ?? 0) + 2
        var lines = heading
        lines.append("")
        lines.append(pad("figure", nameWidth) + leftPad("value", 12) + "  " + pad("unit", 6) + leftPad("ratio", 9) + "  baseline")
        for section in sections where !section.figures.isEmpty {
            lines.append(section.title)
            for figure in section.figures {
                let ratio = figure.ratio.map { String(format: "%.2f×", $0) } ?? ""
                lines.append(
                    "  " + pad(figure.name, nameWidth - 2) + leftPad(value(figure), 12) + "  " + pad(figure.unit, 6)
                        + leftPad(ratio, 9) + (figure.baseline.map { "  " + $0 } ?? ""))
            }
        }
        return lines.joined(separator: "\n")
    }

    /// A figure's value with as many digits as are worth reading.
    static func value(_ figure: Figure) -> String {
        let value = figure.value
        switch figure.unit {
        case FigureUnit.operationsPerSecond.rawValue:
            return Format.rate(value)
        case FigureUnit.percent.rawValue:
            return String(format: "%.2f", value)
        default:
            if abs(value.rounded()) >= 1_000 { return Format.count(Int(value.rounded())) }
            if abs(value) >= 100 { return String(format: "%.0f", value) }
            if abs(value) >= 10 { return String(format: "%.1f", value) }
            return String(format: "%.2f", value)
        }
    }

    private static func pad(_ text: String, _ width: Int) -> String {
        text.count >= width ? text + " " : text + String(repeating: " ", count: width - text.count)
    }

    private static func leftPad(_ text: String, _ width: Int) -> String {
        text.count >= width ? " " + text : String(repeating: " ", count: width - text.count) + text
    }
}
