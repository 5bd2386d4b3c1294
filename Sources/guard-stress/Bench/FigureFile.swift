import FaultInjector
import Foundation

/// `--json FILE`: the figures as a JSON list, written where the user asked.
struct FigureFile {
    let path: String

    /// Checks up front that `path` can be written (so a typo fails before minutes of measuring), leaving an existing
    /// file as it is. Throws a usage error naming the path and the reason.
    init(path: String) throws {
        guard !path.isEmpty else { throw UsageError("--json needs a file name") }
        self.path = path
        if let problem = OutputPath.writeProblem(path, createsDirectory: false) {
            throw UsageError("--json cannot write '\(path)': \(problem)")
        }
    }

    /// Writes `figures` as a pretty-printed JSON array, whole or not at all.
    func write(_ figures: [Figure]) throws {
        try AtomicFile.write(Self.encode(figures) + Data("\n".utf8), to: path, replacing: true)
    }

    /// The JSON for `figures`: a list of objects with `name`, `value`, `unit`, and `baseline` and `ratio` where the
    /// figure has them.
    static func encode(_ figures: [Figure]) throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        return try encoder.encode(figures)
    }
}
