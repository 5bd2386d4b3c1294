import Foundation
import GuardCore

/// A scenario as the explorer's child processes receive it.
struct ScenarioMessage: Codable, Sendable {
    var configuration: ScenarioConfiguration
    var seed: UInt64
    var operations: [[String]]

    init(_ scenario: Scenario) {
        configuration = scenario.configuration
        seed = scenario.seed
        operations = scenario.operations.map { $0.map(\.description) }
    }

    /// The scenario, or `nil` if an operation does not read back.
    var scenario: Scenario? {
        var parsed: [[Operation]] = []
        for list in operations {
            var operations: [Operation] = []
            for text in list {
                guard let operation = Operation(text) else { return nil }
                operations.append(operation)
            }
            parsed.append(operations)
        }
        return Scenario(configuration: configuration, seed: seed, operations: parsed)
    }
}

/// One job for an explorer's child process: set up the scenario and target that later executions use, run one
/// execution of it, explore one subtree of it to the end, or explore a whole scenario. An execution's request travels packed (``WireCodable``).
struct ExplorationJob: Codable, Sendable {
    /// The scenario (for `setUp` and `explore`).
    var scenario: ScenarioMessage?
    /// The target's name (for `setUp` and `explore`).
    var target: String?
    /// The settings (for `setUp` and `explore`).
    var settings: ExplorationSettings?
    /// The execution to run (of the scenario set up before).
    var execution: ExecutionRequest?
    /// Whether to explore the whole scenario (its ``ExplorationOutcome`` comes back).
    var exploresWhole = false
    /// A subtree to explore to the end: everything below this request's branch (its ``SubtreeReport`` comes back).
    var subtree: ExecutionRequest?
    /// The report of the subtree's first execution, already run (the subtree's search starts from it).
    var firstReport: ExecutionReport?
    /// The most executions the subtree may take.
    var executionLimit: Int?

    init() {}

    private enum CodingKeys: String, CodingKey {
        case scenario, target, settings, execution, exploresWhole, subtree, firstReport, executionLimit
    }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        scenario = try container.decodeIfPresent(ScenarioMessage.self, forKey: .scenario)
        target = try container.decodeIfPresent(String.self, forKey: .target)
        settings = try container.decodeIfPresent(ExplorationSettings.self, forKey: .settings)
        execution = try container.decodeIfPresent(String.self, forKey: .execution).map(ExecutionRequest.init(packed:))
        exploresWhole = try container.decodeIfPresent(Bool.self, forKey: .exploresWhole) ?? false
        subtree = try container.decodeIfPresent(String.self, forKey: .subtree).map(ExecutionRequest.init(packed:))
        firstReport = try container.decodeIfPresent(String.self, forKey: .firstReport).map(ExecutionReport.init(packed:))
        executionLimit = try container.decodeIfPresent(Int.self, forKey: .executionLimit)
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encodeIfPresent(scenario, forKey: .scenario)
        try container.encodeIfPresent(target, forKey: .target)
        try container.encodeIfPresent(settings, forKey: .settings)
        try container.encodeIfPresent(execution?.packed, forKey: .execution)
        try container.encode(exploresWhole, forKey: .exploresWhole)
        try container.encodeIfPresent(subtree?.packed, forKey: .subtree)
        try container.encodeIfPresent(firstReport?.packed, forKey: .firstReport)
        try container.encodeIfPresent(executionLimit, forKey: .executionLimit)
    }
}

/// A child process's answer to one ``ExplorationJob``. An execution's report travels packed (``WireCodable``).
struct ExplorationJobAnswer: Codable, Sendable {
    var report: ExecutionReport?
    var subtree: SubtreeReport?
    var outcome: ExplorationOutcome?
    var error: String?

    init() {}

    private enum CodingKeys: String, CodingKey {
        case report, subtree, outcome, error
    }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        report = try container.decodeIfPresent(String.self, forKey: .report).map(ExecutionReport.init(packed:))
        subtree = try container.decodeIfPresent(String.self, forKey: .subtree).map(SubtreeReport.init(packed:))
        outcome = try container.decodeIfPresent(ExplorationOutcome.self, forKey: .outcome)
        error = try container.decodeIfPresent(String.self, forKey: .error)
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encodeIfPresent(report?.packed, forKey: .report)
        try container.encodeIfPresent(subtree?.packed, forKey: .subtree)
        try container.encodeIfPresent(outcome, forKey: .outcome)
        try container.encodeIfPresent(error, forKey: .error)
    }
}

/// The child side of `explore --jobs N`: reads ``ExplorationJob``s (one JSON line each) on standard input and writes
/// one answer line each on standard output, until standard input ends. `guard-stress` serves it behind a hidden
/// subcommand; the system under test's own output goes to standard error.
public enum ExplorationServer {
    /// Serves jobs until standard input ends; returns the exit status (0, or 1 if the parent could not be written
    /// to). Targets are made by name with `makeTarget`.
    public static func serve(
        makeTarget: (_ name: String, _ diagnostics: any DiagnosticSink) -> (any SystemUnderTest)? = TargetCatalog.make
    ) -> Int32 {
        ProcessLimits.disableCoreDumps()
        let answers = dup(1)
        guard answers >= 0, dup2(2, 1) >= 0 else { return 1 }
        ParentWatch.exitWhenOrphaned()
        var input = LineInput(descriptor: 0)
        var explorer: Explorer?
        let encoder = JSONEncoder()
        while let line = input.next() {
            var answer = ExplorationJobAnswer()
            do {
                let job = try JSONDecoder().decode(ExplorationJob.self, from: Data(line))
                answer = try perform(job, explorer: &explorer, makeTarget: makeTarget)
            } catch let error as ServerError {
                answer.error = error.message
            } catch {
                answer.error = "the job could not be read: \(error)"
            }
            let encoded = (try? encoder.encode(answer)) ?? Data(#"{"error":"the answer could not be encoded"}"#.utf8)
            guard ServerOutput.write(line: encoded, to: answers) else { return 1 }
        }
        return 0
    }

    private struct ServerError: Error {
        let message: String
    }

    private static func perform(
        _ job: ExplorationJob, explorer: inout Explorer?,
        makeTarget: (_ name: String, _ diagnostics: any DiagnosticSink) -> (any SystemUnderTest)?
    ) throws -> ExplorationJobAnswer {
        if let message = job.scenario {
            guard let scenario = message.scenario else { throw ServerError(message: "an operation does not read back") }
            let name = job.target ?? "guard"
            guard let target = makeTarget(name, CountingSink(keepsEvents: false)) else {
                throw ServerError(message: "this server does not know target \"\(name)\"")
            }
            var settings = job.settings ?? ExplorationSettings()
            settings.jobs = 1
            explorer = Explorer(scenario: scenario, target: target, settings: settings)
        }
        var answer = ExplorationJobAnswer()
        if job.exploresWhole {
            guard let explorer else { throw ServerError(message: "no scenario to explore") }
            answer.outcome = explorer.explore()
        } else if let request = job.subtree {
            guard let explorer else { throw ServerError(message: "a subtree before any scenario") }
            answer.subtree = explorer.exploreSubtree(request, from: job.firstReport, limit: job.executionLimit)
        } else if let request = job.execution {
            guard let explorer else { throw ServerError(message: "an execution before any scenario") }
            answer.report = explorer.execute(request)
        }
        return answer
    }
}
