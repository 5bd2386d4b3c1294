import FaultInjector
import Foundation

/// The kinds of report guard-stress writes, each recognisable in a file it wrote earlier. An earlier report of the
/// same kind is the only non-empty file a report may replace (see ``ReportDestination``): re-running a command
/// replaces its own report, never a seed file, a binary or a source file that happens to be in the way.
public enum ReportKind: Sendable, CaseIterable {
    /// The JSON report of `run`, `replay` and `mutants` (`--json`): an object whose `format` is
    /// ``StressReport/formatName``.
    case stressReport
    /// The JUnit XML of `run`, `replay` and `mutants` (`--junit`): an XML declaration, then ``junitMarker``.
    case junit
    /// `bench --json`: a JSON list of figures, each an object with a string `name`, a number `value` and a string
    /// `unit`.
    case benchFigures
    /// `explain --html`: a page whose head carries ``pageGeneratorTag``.
    case storyPage
    /// The JSON report of `explore` (`--json`): an object whose `format` is ``ExplorationReport/formatName``.
    case explorationReport

    /// The tag every page `explain --html` writes carries in its head, by which a later run recognises it.
    public static let pageGeneratorTag = #"<meta name="generator" content="guard-stress explain"/>"#

    /// How the root element of every JUnit report guard-stress writes begins (`<testsuites name="guard-stress"`), by
    /// which a later run recognises it.
    public static let junitMarker = #"<testsuites name="guard-stress""#

    /// The largest file recognised as a report: guard-stress's reports are far smaller, and a bigger file is not
    /// read to find out.
    static let largestReport = 64 << 20

    /// `a guard-stress JSON report`, for messages.
    public var description: String {
        switch self {
        case .stressReport: return "a guard-stress JSON report"
        case .junit: return "a guard-stress JUnit report"
        case .benchFigures: return "a guard-stress bench JSON file"
        case .storyPage: return "a guard-stress explain page"
        case .explorationReport: return "a guard-stress explore JSON report"
        }
    }

    /// Whether `data` (a whole file) is a report of this kind.
    public func recognizes(_ data: Data) -> Bool {
        switch self {
        case .stressReport:
            let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any]
            return object?["format"] as? String == StressReport.formatName
        case .junit:
            let head = String(decoding: data.prefix(4096), as: UTF8.self)
            return head.hasPrefix("<?xml") && head.contains(Self.junitMarker)
        case .benchFigures:
            // bench never writes an empty list (a filter that selects nothing is a usage error).
            guard let list = try? JSONSerialization.jsonObject(with: data) as? [Any], !list.isEmpty else { return false }
            return list.allSatisfy { element in
                guard let figure = element as? [String: Any] else { return false }
                return figure["name"] is String && figure["value"] is NSNumber && figure["unit"] is String
            }
        case .storyPage:
            let head = String(decoding: data.prefix(4096), as: UTF8.self)
            return head.hasPrefix("<!DOCTYPE html>") && head.contains(Self.pageGeneratorTag)
        case .explorationReport:
            let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any]
            return object?["format"] as? String == ExplorationReport.formatName
        }
    }

    /// What `data` is, for a message saying why it is not replaced: `a guard-stress seed file`, `an executable`,
    /// or `a file that is not a guard-stress JSON report`.
    func describeOther(_ data: Data, executable: Bool) -> String {
        if let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
            object["format"] as? String == SeedFile.formatName
        {
            return "a guard-stress seed file"
        }
        if data.starts(with: [0x7F, 0x45, 0x4C, 0x46]) || data.starts(with: [0xCF, 0xFA, 0xED, 0xFE]) || executable {
            return "an executable"
        }
        for other in Self.allCases where other != self && other.recognizes(data) {
            return other.description + ", not " + description
        }
        return "a file that is not " + description
    }
}
