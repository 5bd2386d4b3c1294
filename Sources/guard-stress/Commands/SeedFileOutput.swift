import FaultInjector
import Foundation

/// Where a command writes the seed file it makes from its input (`shrink`'s shrunk file, `replay --record`'s recorded
/// failure): `--out FILE`, or the first free name of the series `NAME.SUFFIX.json`, `NAME.SUFFIX-2.json`, … beside
/// the input (`NAME` without `.json` or `.scenario`). Checked to be writable before any work; an existing `--out`
/// file is replaced only with `--force`, the input never, and a default name that another process took meanwhile
/// moves the file to the next free name of the series instead of failing.
struct SeedFileOutput {
    /// The file the shrunk seed file goes to (for the default series, the name that was free when the shrink began).
    let path: String
    /// Whether `--force` allows replacing the `--out` file.
    private let replacing: Bool
    /// For the default series: the input's name without `.json`, and the number of ``path`` in the series.
    private let series: (base: String, number: Int)?
    /// `shrunk`, `recorded`.
    private let suffix: String

    /// The output of `command` (`shrink`) for `input`, named `NAME.SUFFIX.json` by default.
    init(for input: String, suffix: String, command: String, _ arguments: ParsedArguments) throws {
        self.suffix = suffix
        if let out = arguments.string("--out") {
            guard !out.isEmpty else { throw UsageError("--out needs a file name") }
            if OutputPath.sameFile(out, input) {
                throw UsageError("--out names the input file \(input); \(command) never overwrites its input")
            }
            try OutputPath.checkFile(out, option: "--out")
            replacing = arguments.has("--force")
            if FileManager.default.fileExists(atPath: out), !replacing {
                throw UsageError("--out \(out) exists; pass --force to overwrite it")
            }
            path = out
            series = nil
            return
        }
        var base = input
        for ext in [".json", "." + ScenarioFile.textExtension] where base.hasSuffix(ext) { base = String(base.dropLast(ext.count)) }
        var number = 1
        while FileManager.default.fileExists(atPath: Self.name(base, suffix, number)) { number += 1 }
        path = Self.name(base, suffix, number)
        replacing = false
        series = (base, number)
        // Checked now, not after a shrink that may take minutes.
        if let problem = OutputPath.writeProblem(path, createsDirectory: false) {
            throw UsageError("\(command) cannot write its output \(path): \(problem); name another file with --out")
        }
    }

    /// Writes `file` (pretty-printed JSON, whole or not at all) and returns where.
    func write(_ file: SeedFile) throws -> String {
        let data = try Self.encoded(file)
        guard let series else {
            try AtomicFile.write(data, to: path, replacing: replacing)
            return path
        }
        return try NumberedFileName.write(data, numbers: series.number..<(series.number + 10_000)) {
            Self.name(series.base, suffix, $0)
        }
    }

    /// Writes `file`, whose failure the verification replays did not confirm, under a name that says so and that
    /// no file of the series has: `NAME.unverified-SUFFIX.json` beside the input (`NAME.unverified-SUFFIX-N.json`,
    /// the first free one), or `OUT.unverified.json` beside `--out OUT.json`; never replacing anything. Returns where.
    func writeUnverified(_ file: SeedFile) throws -> String {
        let data = try Self.encoded(file)
        let withoutExtension = series?.base ?? (path.hasSuffix(".json") ? String(path.dropLast(5)) : path)
        let suffix = series == nil ? ".unverified" : ".unverified-" + self.suffix
        return try NumberedFileName.write(data, numbers: 1..<10_001) {
            withoutExtension + suffix + ($0 == 1 ? "" : "-\($0)") + ".json"
        }
    }

    private static func encoded(_ file: SeedFile) throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        var data = try encoder.encode(file)
        data.append(0x0A)
        return data
    }

    /// `NAME.SUFFIX.json` for 1, `NAME.SUFFIX-N.json` for a larger `number`.
    private static func name(_ base: String, _ suffix: String, _ number: Int) -> String {
        number == 1 ? "\(base).\(suffix).json" : "\(base).\(suffix)-\(number).json"
    }
}
