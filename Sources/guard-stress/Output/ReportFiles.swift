import FaultInjector
import Foundation

/// `--json FILE` and `--junit FILE`: checked before anything runs (so a bad path is a usage error, not a lost
/// campaign), written at the end.
struct ReportFiles {
    static let options: Set<String> = ["--json", "--junit"]

    /// Where the JSON summary goes.
    let json: String?
    /// Where the JUnit XML goes.
    let junit: String?

    /// Reads the options and makes sure each file can be written (creating it empty, and its directory if needed).
    init(_ arguments: ParsedArguments) throws {
        json = try Self.prepare(arguments.string("--json"), option: "--json")
        junit = try Self.prepare(arguments.string("--junit"), option: "--junit")
        if let json, json == junit { throw UsageError("--json and --junit need different files (both are \(json))") }
    }

    /// Writes the reports asked for; a failure is printed and returns `false`.
    func write(json report: @autoclosure () -> StressReport, junit xml: @autoclosure () -> JUnitReport) -> Bool {
        var written = true
        if let json {
            do {
                try report().encoded().write(to: URL(fileURLWithPath: json))
            } catch {
                Terminal.printError("guard-stress: cannot write the JSON report \(json): \(error.localizedDescription)")
                written = false
            }
        }
        if let junit {
            do {
                try Data(xml().xml.utf8).write(to: URL(fileURLWithPath: junit))
            } catch {
                Terminal.printError("guard-stress: cannot write the JUnit report \(junit): \(error.localizedDescription)")
                written = false
            }
        }
        return written
    }

    private static func prepare(_ path: String?, option: String) throws -> String? {
        guard let path else { return nil }
        guard !path.isEmpty else { throw UsageError("\(option) needs a file name") }
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), isDirectory.boolValue {
            throw UsageError("\(option) needs a file, but \(path) is a directory")
        }
        let parent = (path as NSString).deletingLastPathComponent
        if !parent.isEmpty { try? FileManager.default.createDirectory(atPath: parent, withIntermediateDirectories: true) }
        guard FileManager.default.createFile(atPath: path, contents: nil) else {
            throw UsageError("\(option): cannot write \(path)")
        }
        return path
    }
}
