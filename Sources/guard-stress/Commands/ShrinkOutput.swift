import FaultInjector
import Foundation

/// Where `shrink` writes the shrunk seed file: `--out FILE`, or the first free name of the series `NAME.shrunk.json`,
/// `NAME.shrunk-2.json`, … beside the input; a file whose failure did not verify goes under a name that says so
/// (``writeUnverified(_:)``). Checked to be writable before any work; an existing `--out` file is
/// replaced only with `--force`, the input never, and a default name that another process took while the shrink ran
/// moves the file to the next free name of the series instead of failing.
struct ShrinkOutput {
    /// The file the shrunk seed file goes to (for the default series, the name that was free when the shrink began).
    let path: String
    /// Whether `--force` allows replacing the `--out` file.
    private let replacing: Bool
    /// For the default series: the input's name without `.json`, and the number of ``path`` in the series.
    private let series: (base: String, number: Int)?

    init(for input: String, _ arguments: ParsedArguments) throws {
        if let out = arguments.string("--out") {
            guard !out.isEmpty else { throw UsageError("--out needs a file name") }
            if OutputPath.sameFile(out, input) {
                throw UsageError("--out names the input file \(input); shrink never overwrites its input")
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
        let base = input.hasSuffix(".json") ? String(input.dropLast(5)) : input
        var number = 1
        while FileManager.default.fileExists(atPath: Self.name(base, number)) { number += 1 }
        path = Self.name(base, number)
        replacing = false
        series = (base, number)
        // Checked now, not after a shrink that may take minutes.
        if let problem = OutputPath.writeProblem(path, createsDirectory: false) {
            throw UsageError("shrink cannot write its output \(path): \(problem); name another file with --out")
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
            Self.name(series.base, $0)
        }
    }

    /// Writes `file`, whose failure the verification replays did not confirm, under a name that says so and that
    /// no shrunk file has: `NAME.unverified-shrunk.json` beside the input (`NAME.unverified-shrunk-N.json`, the first
    /// free one), or `OUT.unverified.json` beside `--out OUT.json`; never replacing anything. Returns where.
    func writeUnverified(_ file: SeedFile) throws -> String {
        let data = try Self.encoded(file)
        let withoutExtension = series?.base ?? (path.hasSuffix(".json") ? String(path.dropLast(5)) : path)
        let suffix = series == nil ? ".unverified" : ".unverified-shrunk"
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

    /// `NAME.shrunk.json` for 1, `NAME.shrunk-N.json` for a larger `number`.
    private static func name(_ base: String, _ number: Int) -> String {
        number == 1 ? base + ".shrunk.json" : base + ".shrunk-\(number).json"
    }
}
