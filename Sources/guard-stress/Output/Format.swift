import Foundation

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
