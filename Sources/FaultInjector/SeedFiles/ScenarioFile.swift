import Foundation

/// A scenario ready to run, explore, replay or shrink, whichever file it came from: a text scenario written by a
/// person, or a JSON seed file (whose operations are a scenario too).
public struct LoadedScenario: Sendable {
    /// The file it was read from.
    public let path: String
    /// Whether it was a text scenario (`false`: a JSON seed file).
    public let isText: Bool
    /// Its configuration (for a text scenario, made from the header and the operations), seed and operations.
    public var scenario: Scenario
    /// The system under test it names (`guard` for a text scenario that names none).
    public var target: String
    /// How it runs: the seed file's runner, or a text scenario's (controlled, strategy random, unless it says
    /// otherwise).
    public var runner: RunnerChoice
    /// The one line saying what it shows, if it has one.
    public var description: String?
    /// The scenario as a seed file: the file itself, or for a text scenario a seed file with its operations, target,
    /// runner and seed that records no failure (so `replay`, `explain` and `run --scenario` take either).
    public var seedFile: SeedFile
    /// A text scenario's operations' line numbers (`lines[worker][index]`); empty for a seed file.
    public var lines: [[Int]]
}

/// Reads text scenarios and seed files through one door, and writes a seed file's scenario as text.
///
/// A text scenario, from a crash report to a file in a minute:
///
/// ```
/// # two threads remove the same observer
/// target guard
/// worker 0:
///   observe c0 o0 k0 [new]
///   unobserve c0 o0 k0
/// worker 1:
///   unobserve c0 o0 k0
/// ```
///
/// Settings (``ScenarioHeader``) come first and are all optional; the slots (`c0`, `o0`) and keys are inferred from
/// the operations. A mistake is reported with its line and column (``ScenarioFileError``).
public enum ScenarioFile {
    /// The file name extension of text scenarios (any name works: the content decides).
    public static let textExtension = "scenario"

    /// Every setting a text scenario's header may give: its keyword, its argument, and what it sets (with the
    /// default a scenario that leaves it out gets).
    public static var settings: [(keyword: String, argument: String, summary: String)] { ScenarioHeader.keywords }

    /// The scenario in the file at `path`: a JSON seed file when its name ends in `.json` or its first character
    /// that is not blank is `{` or `[`, a text scenario otherwise. A target must be one of `targets` (the built-in
    /// ones by default).
    public static func load(_ path: String, targets: [String] = TargetCatalog.knownNames) throws(ScenarioFileError) -> LoadedScenario {
        if path.hasSuffix(".json") { return try seedFile(path, targets: targets) }
        let text = try read(path)
        guard let first = text.first(where: { !$0.isWhitespace }) else { throw .empty(path: path) }
        guard first == "{" || first == "[" else { return try parse(text, path: path, targets: targets) }
        return try seedFile(path, targets: targets)
    }

    /// The seed file at `path`, as a scenario.
    private static func seedFile(_ path: String, targets: [String]) throws(ScenarioFileError) -> LoadedScenario {
        do {
            return try loaded(SeedFileStore.read(path, targets: targets), path: path)
        } catch {
            throw .seedFile(error)
        }
    }

    /// The text scenario `text` (from the file `path`, named in error messages).
    public static func parse(
        _ text: String, path: String = "scenario", targets: [String] = TargetCatalog.knownNames
    ) throws(ScenarioFileError) -> LoadedScenario {
        var reader = ScenarioTextReader(text, path: path, targets: targets)
        let (header, scenario, placed) = try reader.read()
        let runner = header.runnerChoice
        var file = SeedFile(roundAboutToRun: scenario, target: header.target, runner: runner, toolVersion: ToolVersion.current)
        file.failure = SeedFile.Failure(signature: "", violationCounts: [:], runtimeMisuses: [:], examples: [])
        file.operations = scenario.operations.map { $0.map(\.description) }
        file.description = header.description
        return LoadedScenario(
            path: path, isText: true, scenario: scenario, target: header.target, runner: runner,
            description: header.description, seedFile: file, lines: placed.map { $0.map(\.line) })
    }

    /// A seed file already read, as a scenario.
    public static func loaded(_ file: SeedFile, path: String) throws(SeedFileError) -> LoadedScenario {
        LoadedScenario(
            path: path, isText: false, scenario: try file.makeScenario(), target: file.target,
            runner: try file.makeRunnerChoice(), description: file.description, seedFile: file, lines: [])
    }

    /// `file`'s scenario as a text scenario: its operations and the settings that run them as the file does (target,
    /// seed, runner, weak controllers, object deinit calls, slot counts where they differ from the ones inferred).
    /// Reading the text back gives the same operations, which run as the file's do. What the text cannot say is left
    /// out: the failure and the schedule the file records, and a chaos file's own pause probabilities.
    public static func text(of file: SeedFile) throws(SeedFileError) -> String {
        let scenario = try file.makeScenario()
        var lines = ScenarioHeader(file: file, scenario: scenario).lines
        for (worker, operations) in scenario.operations.enumerated() {
            lines.append("worker \(worker):")
            lines += operations.map { "  \($0)" }
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// The file's text, or why it cannot be had.
    private static func read(_ path: String) throws(ScenarioFileError) -> String {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            throw .unreadable(path: path, reason: "no such file")
        }
        guard !isDirectory.boolValue else { throw .unreadable(path: path, reason: "it is a directory, not a file") }
        guard FileManager.default.isReadableFile(atPath: path), let data = FileManager.default.contents(atPath: path) else {
            throw .unreadable(path: path, reason: "permission denied")
        }
        guard let text = String(data: data, encoding: .utf8) else {
            throw .unreadable(path: path, reason: "it is not text (not UTF-8)")
        }
        return text
    }
}
