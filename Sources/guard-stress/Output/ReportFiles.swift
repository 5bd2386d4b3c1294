import FaultInjector
import Foundation

/// `--json FILE` and `--junit FILE`: checked before anything runs (so a bad path is a usage error, not a lost
/// campaign), written at the end, each atomically (an existing report is replaced only by a complete new one).
struct ReportFiles {
    static let options: Set<String> = ["--json", "--junit"]

    /// Where the JSON summary goes.
    let json: String?
    /// Where the JUnit XML goes.
    let junit: String?

    /// Reads the options and makes sure each file can be written (creating its directory if needed), without
    /// changing an existing file. A report may not be written over one of `inputs` (the seed file being read) nor
    /// over the other report.
    init(_ arguments: ParsedArguments, inputs: [String] = []) throws {
        json = try Self.check(arguments.string("--json"), option: "--json", inputs: inputs)
        junit = try Self.check(arguments.string("--junit"), option: "--junit", inputs: inputs)
        if let json, let junit, OutputPath.sameFile(json, junit) {
            throw UsageError("--json and --junit need different files (\(json) and \(junit) are the same file)")
        }
    }

    /// Writes the reports asked for, each whole or not at all; a failure is printed and returns `false`.
    func write(json report: @autoclosure () -> StressReport, junit xml: @autoclosure () -> JUnitReport) -> Bool {
        var written = true
        if let json {
            do {
                try AtomicFile.write(report().encoded(), to: json, replacing: true)
            } catch {
                Terminal.printError("guard-stress: cannot write the JSON report \(json): \(error.localizedDescription)")
                written = false
            }
        }
        if let junit {
            do {
                try AtomicFile.write(Data(xml().xml.utf8), to: junit, replacing: true)
            } catch {
                Terminal.printError("guard-stress: cannot write the JUnit report \(junit): \(error.localizedDescription)")
                written = false
            }
        }
        return written
    }

    private static func check(_ path: String?, option: String, inputs: [String]) throws -> String? {
        guard let path else { return nil }
        try OutputPath.checkFile(path, option: option)
        for input in inputs { try OutputPath.checkNotInput(path, option: option, input: input) }
        return path
    }
}
