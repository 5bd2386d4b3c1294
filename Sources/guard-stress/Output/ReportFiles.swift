import FaultInjector
import FaultInjectorTools
import Foundation

/// `--json FILE` and `--junit FILE`: checked before anything runs (so a bad path is a usage error, not a lost
/// campaign), written at the end, each atomically (an existing report is replaced only by a complete new one), and
/// never over anything but an earlier report of the same kind or an empty file, unless `--force`
/// (``ReportDestination``). `-` names standard output (``StandardOutputReport``).
///
/// A command that has reports to write marks them unfinished when it starts (``begin(unfinished:interrupted:)``):
/// a report of an earlier run is never left at the path while this one runs, is killed, or is stopped by a signal.
struct ReportFiles {
    static let options: Set<String> = ["--json", "--junit"]
    static let flags: Set<String> = ["--force"]

    /// Where a report goes.
    enum Target {
        case file(ReportDestination)
        case standardOutput(StandardOutputReport)
    }

    /// Where the JSON summary goes.
    let json: Target?
    /// Where the JUnit XML goes.
    let junit: Target?

    /// Reads the options and makes sure each file can be written (creating its directory if needed), without
    /// changing an existing file. A report may not be written over one of `inputs` (the seed file being read), over
    /// the other report, over a file that is not an earlier report of its kind (unless `--force`), nor where the
    /// campaign writes its seed files in `seedDirectory` (the `--out` directory, if the command has one). Only one of
    /// them may go to standard output.
    init(_ arguments: ParsedArguments, inputs: [String] = [], seedDirectory: String? = nil) throws {
        let force = arguments.has("--force")
        let jsonPath = arguments.string("--json")
        let junitPath = arguments.string("--junit")
        if jsonPath == "-", junitPath == "-" {
            throw UsageError("--json - and --junit - cannot both go to standard output; name a file for one of them")
        }
        if let jsonPath, let junitPath, !jsonPath.isEmpty, jsonPath != "-", OutputPath.sameFile(jsonPath, junitPath) {
            throw UsageError("--json and --junit need different files (\(jsonPath) and \(junitPath) are the same file)")
        }
        let jsonFile = try Self.check(jsonPath, option: "--json", kind: .stressReport, force: force, inputs: inputs, seedDirectory: seedDirectory)
        let junitFile = try Self.check(junitPath, option: "--junit", kind: .junit, force: force, inputs: inputs, seedDirectory: seedDirectory)
        // Checked first: standard output is handed over only when nothing else can fail.
        json = try jsonPath == "-" ? .standardOutput(StandardOutputReport()) : jsonFile.map(Target.file)
        junit = try junitPath == "-" ? .standardOutput(StandardOutputReport()) : junitFile.map(Target.file)
    }

    /// Marks the reports unfinished before the command's work: writes `unfinished` into each report file that is a
    /// regular file or not there yet (never into a pipe or a device, which would hand a reader the unfinished report
    /// as the only one), and arms SIGTERM and SIGINT to write `interrupted` (given the signal's number and name)
    /// before the process ends by that signal. Returns `false` (having said why) if a report could not be written:
    /// the command should stop before doing any work.
    func begin(
        unfinished: (json: StressReport, junit: JUnitReport),
        interrupted: @escaping @Sendable (_ signal: Int32, _ name: String) -> (json: StressReport, junit: JUnitReport)
    ) -> Bool {
        guard json != nil || junit != nil else { return true }
        var written = true
        if case .file(let destination) = json, Self.isRegularOrAbsent(destination.path) {
            written = Self.write(destination, what: "JSON report") { try unfinished.json.encoded() } && written
        }
        if case .file(let destination) = junit, Self.isRegularOrAbsent(destination.path) {
            written = Self.write(destination, what: "JUnit report") { Data(unfinished.junit.xml.utf8) } && written
        }
        guard written else { return false }
        let reports = self
        Interruption.shared.arm { signal, name in
            let (json, junit) = interrupted(signal, name)
            _ = reports.writeNow(json: json, junit: junit)
        }
        return true
    }

    /// Writes the reports asked for, each whole or not at all; a failure is printed and returns `false`. A report
    /// that found a file it may not replace at its path (one that appeared while the command ran), or a named pipe
    /// nobody read, is written beside it, and says where. A signal arriving meanwhile waits for the reports.
    func write(json report: @autoclosure () -> StressReport, junit xml: @autoclosure () -> JUnitReport) -> Bool {
        Interruption.shared.finishing { writeNow(json: report(), junit: xml()) }
    }

    private func writeNow(json report: @autoclosure () -> StressReport, junit xml: @autoclosure () -> JUnitReport) -> Bool {
        var written = true
        if let json {
            written = Self.write(json, what: "JSON report") { try report().encoded() } && written
        }
        if let junit {
            written = Self.write(junit, what: "JUnit report") { Data(xml().xml.utf8) } && written
        }
        return written
    }

    private static func write(_ target: Target, what: String, data: () throws -> Data) -> Bool {
        switch target {
        case .file(let destination):
            return write(destination, what: what, data: data)
        case .standardOutput(let output):
            do {
                try output.write(try data())
                return true
            } catch {
                Terminal.printError("guard-stress: cannot write the \(what) to standard output: \(error.localizedDescription)")
                return false
            }
        }
    }

    private static func write(_ destination: ReportDestination, what: String, data: () throws -> Data) -> Bool {
        do {
            tell(try destination.write(try data()), what: what)
            return true
        } catch {
            Terminal.printError("guard-stress: cannot write the \(what) \(destination.path): \(error.localizedDescription)")
            return false
        }
    }

    /// Whether `path` is a regular file or nothing (an unfinished report is written only there).
    private static func isRegularOrAbsent(_ path: String) -> Bool {
        var status = stat()
        guard stat(path, &status) == 0 else { return true }
        return status.st_mode & S_IFMT == S_IFREG
    }

    /// Says so when a report went to a file beside the destination's path instead, and why.
    static func tell(_ written: WrittenReport, what: String) {
        guard let detour = written.detour else { return }
        Terminal.printError("guard-stress: \(detour); the \(what) was written to \(written.path)")
    }

    private static func check(
        _ path: String?, option: String, kind: ReportKind, force: Bool, inputs: [String], seedDirectory: String?
    ) throws -> ReportDestination? {
        guard let path, path != "-" else { return nil }
        // Before checkFile, which creates the report's directory: it may be the seed file directory itself.
        if let seedDirectory, !path.isEmpty {
            try OutputPath.checkNotSeedFile(path, option: option, seedDirectory: seedDirectory)
        }
        try OutputPath.checkFile(path, option: option)
        for input in inputs { try OutputPath.checkNotInput(path, option: option, input: input) }
        return try OutputPath.checkReport(path, option: option, kind: kind, force: force)
    }
}
