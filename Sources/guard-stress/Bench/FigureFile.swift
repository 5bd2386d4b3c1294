import FaultInjector
import FaultInjectorTools
import Foundation

/// `--json FILE`: the figures as a JSON list, written where the user asked, replacing only an earlier figure list
/// (or an empty file) unless `--force`.
struct FigureFile {
    let destination: ReportDestination

    var path: String { destination.path }

    /// Checks up front that `path` can be written (so a typo fails before minutes of measuring) and that nothing but
    /// an earlier figure list (or an empty file) is there, unless `force`, leaving an existing file as it is. Throws
    /// a usage error naming the path and the reason.
    init(path: String, force: Bool) throws {
        guard !path.isEmpty else { throw UsageError("--json needs a file name") }
        if let problem = OutputPath.writeProblem(path, createsDirectory: false) {
            throw UsageError("--json cannot write '\(path)': \(problem)")
        }
        destination = try OutputPath.checkReport(path, option: "--json", kind: .benchFigures, force: force)
    }

    /// Writes `figures` as a pretty-printed JSON array, whole or not at all; returns where (beside ``path`` if a
    /// file that is not a figure list appeared there while measuring, or nobody read the pipe there).
    func write(_ figures: [Figure]) throws -> WrittenReport {
        try destination.write(Self.encode(figures) + Data("\n".utf8))
    }

    /// The JSON for `figures`: a list of objects with `name`, `value`, `unit`, and `baseline` and `ratio` where the
    /// figure has them.
    static func encode(_ figures: [Figure]) throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        return try encoder.encode(figures)
    }
}
