import FaultInjector
import Foundation

/// `--json FILE` and `--junit FILE`: checked before anything runs (so a bad path is a usage error, not a lost
/// campaign), written at the end, each atomically (an existing report is replaced only by a complete new one), and
/// never over anything but an earlier report of the same kind or an empty file, unless `--force`
/// (``ReportDestination``).
struct ReportFiles {
    static let options: Set<String> = ["--json", "--junit"]
    static let flags: Set<String> = ["--force"]

    /// Where the JSON summary goes.
    let json: ReportDestination?
    /// Where the JUnit XML goes.
    let junit: ReportDestination?

    /// Reads the options and makes sure each file can be written (creating its directory if needed), without
    /// changing an existing file. A report may not be written over one of `inputs` (the seed file being read), over
    /// the other report, over a file that is not an earlier report of its kind (unless `--force`), nor where the
    /// campaign writes its seed files in `seedDirectory` (the `--out` directory, if the command has one).
    init(_ arguments: ParsedArguments, inputs: [String] = [], seedDirectory: String? = nil) throws {
        let force = arguments.has("--force")
        let jsonPath = arguments.string("--json")
        let junitPath = arguments.string("--junit")
        if let jsonPath, let junitPath, !jsonPath.isEmpty, OutputPath.sameFile(jsonPath, junitPath) {
            throw UsageError("--json and --junit need different files (\(jsonPath) and \(junitPath) are the same file)")
        }
        json = try Self.check(jsonPath, option: "--json", kind: .stressReport, force: force, inputs: inputs, seedDirectory: seedDirectory)
        junit = try Self.check(junitPath, option: "--junit", kind: .junit, force: force, inputs: inputs, seedDirectory: seedDirectory)
    }

    /// Writes the reports asked for, each whole or not at all; a failure is printed and returns `false`. A report
    /// that found a file it may not replace at its path (one that appeared while the command ran), or a named pipe
    /// nobody read, is written beside it, and says where.
    func write(json report: @autoclosure () -> StressReport, junit xml: @autoclosure () -> JUnitReport) -> Bool {
        var written = true
        if let json {
            do {
                Self.tell(try json.write(report().encoded()), what: "JSON report")
            } catch {
                Terminal.printError("guard-stress: cannot write the JSON report \(json.path): \(error.localizedDescription)")
                written = false
            }
        }
        if let junit {
            do {
                Self.tell(try junit.write(Data(xml().xml.utf8)), what: "JUnit report")
            } catch {
                Terminal.printError("guard-stress: cannot write the JUnit report \(junit.path): \(error.localizedDescription)")
                written = false
            }
        }
        return written
    }

    /// Says so when a report went to a file beside the destination's path instead, and why.
    static func tell(_ written: WrittenReport, what: String) {
        guard let detour = written.detour else { return }
        Terminal.printError("guard-stress: \(detour); the \(what) was written to \(written.path)")
    }

    private static func check(
        _ path: String?, option: String, kind: ReportKind, force: Bool, inputs: [String], seedDirectory: String?
    ) throws -> ReportDestination? {
        guard let path else { return nil }
        // Before checkFile, which creates the report's directory: it may be the seed file directory itself.
        if let seedDirectory, !path.isEmpty {
            try OutputPath.checkNotSeedFile(path, option: option, seedDirectory: seedDirectory)
        }
        try OutputPath.checkFile(path, option: option)
        for input in inputs { try OutputPath.checkNotInput(path, option: option, input: input) }
        return try OutputPath.checkReport(path, option: option, kind: kind, force: force)
    }
}
