import FaultInjector
import FaultInjectorTools
import Foundation
import GuardCore

/// `guard-stress explain FILE`: replays a seed file once and prints the run as a story, optionally also as an HTML
/// page.
///
/// Unless `--in-process`, the file is first replayed once in a child process: if that run crashes, traps or hangs,
/// the story cannot be recorded (a step-by-step trace dies with its process), so the command tells what it can (the
/// verdict, the operations, the process's last words) instead of dying the same way.
enum ExplainCommand {
    static func run(_ words: [String]) throws -> ExitCode {
        let arguments = try ParsedArguments(
            words, options: Set(["--html", "--width", "--attempts"]).union(IsolationOptions.options),
            flags: Set(["--full", "--force", "--help", "-h"]).union(IsolationOptions.flags))
        if arguments.has("--help") || arguments.has("-h") {
            print(HelpText.explain)
            return .passed
        }
        guard arguments.positionals.count == 1 else {
            throw UsageError(
                arguments.positionals.isEmpty
                    ? "explain needs a seed file or a scenario" : "explain takes one seed file, not \(arguments.positionals.count)")
        }
        let path = arguments.positionals[0]
        let width = try arguments.integer("--width", in: 40...1_000) ?? 120
        let attempts = try arguments.integer("--attempts", in: 1...10_000) ?? 20
        var page: ReportDestination?
        if let htmlPath = arguments.string("--html") {
            try OutputPath.checkFile(htmlPath, option: "--html")
            try OutputPath.checkNotInput(htmlPath, option: "--html", input: path)
            page = try OutputPath.checkReport(htmlPath, option: "--html", kind: .storyPage, force: arguments.has("--force"))
        }
        let isolation = try IsolationOptions.isolation(arguments)
        if isolation.childProcessSettings == nil { DeterministicHashing.ensure() }

        guard let loaded = ScenarioInput.load(path) else { return .badInput }
        let story: RunStory
        do {
            let file = loaded.seedFile
            if let settings = isolation.childProcessSettings,
                let death = try processDeath(of: file, isolatedBy: settings)
            {
                return try tellDeath(death, of: file, path: path, page: page)
            }
            DeterministicHashing.ensure()
            var explainer = try Explainer(file: file, fileName: (path as NSString).lastPathComponent)
            explainer.chaosAttempts = attempts
            story = try explainer.explain()
        } catch let error as IsolationError {
            Terminal.printError("guard-stress: the probe run could not run in a child process: \(error)")
            return .badInput
        } catch {
            Terminal.printError("guard-stress: \(error)")
            return .badInput
        }
        var text = StoryText(story: story)
        text.width = width
        if arguments.has("--full") { text.maximumRows = nil }
        print(text.text)
        if let page, !write(Data(StoryPage(story: story).html.utf8), to: page) { return .badInput }
        return story.header.signature.isEmpty ? .passed : .violated
    }

    /// Replays `file` once in a child process; the verdict if that process died (crashed, trapped, or hung and was
    /// killed), `nil` if the run finished (then it is safe to replay it here with a trace).
    private static func processDeath(of file: SeedFile, isolatedBy settings: ChildProcessSettings) throws -> Verdict? {
        let outcome = try Replayer(file: file).replay(runs: 1, isolatedBy: settings)
        guard outcome.crashedRuns > 0 else { return nil }
        return outcome.verdicts.first
    }

    /// The story of a run whose process died: the verdict, each worker's operations, and what the process said.
    private static func tellDeath(_ verdict: Verdict, of file: SeedFile, path: String, page: ReportDestination?) throws -> ExitCode {
        let scenario = try file.makeScenario()
        var lines = [
            "\((path as NSString).lastPathComponent): target \(file.target), runner \(ShrinkCommand.runnerText(file)), seed \(file.seed)",
            "recorded failure: \(file.failure.signature.isEmpty ? "(none)" : file.failure.signature)",
            "replayed once in a child process: its process died, \(verdict.signature)",
            "no step-by-step story: the trace of a run is lost with its process (replay with guard-stress replay; the "
                + "operations below are what ran)",
        ]
        for (worker, operations) in scenario.operations.enumerated() {
            lines.append("  worker \(worker): " + (operations.isEmpty ? "(none)" : operations.map(\.description).joined(separator: "; ")))
        }
        lines.append(contentsOf: verdict.violations.map { "\($0.kind.rawValue): \($0.message)" })
        let text = lines.joined(separator: "\n")
        print(text)
        if let page {
            let html = StoryPage.textPage(title: "\((path as NSString).lastPathComponent): \(verdict.signature)", text: text)
            guard write(Data(html.utf8), to: page) else { return .badInput }
        }
        return .violated
    }

    /// Writes `html` to `page` (beside it, saying so, if a file that is not a page of ours appeared there
    /// meanwhile); `false` after printing why it could not.
    private static func write(_ html: Data, to page: ReportDestination) -> Bool {
        do {
            let written = try page.write(html)
            ReportFiles.tell(written, what: "page")
            print("wrote \(written.path)")
            return true
        } catch {
            Terminal.printError("guard-stress: could not write \(page.path): \(error.localizedDescription)")
            return false
        }
    }
}
