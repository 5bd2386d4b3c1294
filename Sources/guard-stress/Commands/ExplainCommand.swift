import FaultInjector
import Foundation
import GuardCore

/// `guard-stress explain FILE`: replays a seed file once and prints the run as a story, optionally also as an HTML
/// page.
enum ExplainCommand {
    static func run(_ words: [String]) throws -> ExitCode {
        let arguments = try ParsedArguments(
            words, options: ["--html", "--width", "--attempts"], flags: ["--full", "--help", "-h"])
        if arguments.has("--help") || arguments.has("-h") {
            print(HelpText.explain)
            return .passed
        }
        guard arguments.positionals.count == 1 else {
            throw UsageError(
                arguments.positionals.isEmpty ? "explain needs a seed file" : "explain takes one seed file, not \(arguments.positionals.count)")
        }
        let path = arguments.positionals[0]
        let width = try arguments.integer("--width", in: 40...1_000) ?? 120
        let attempts = try arguments.integer("--attempts", in: 1...10_000) ?? 20
        let htmlPath = arguments.string("--html")
        if let htmlPath, htmlPath.isEmpty { throw UsageError("--html needs a file name") }
        DeterministicHashing.ensure()

        let story: RunStory
        do {
            let file = try SeedFileStore.read(path)
            var explainer = try Explainer(file: file, fileName: (path as NSString).lastPathComponent)
            explainer.chaosAttempts = attempts
            story = try explainer.explain()
        } catch {
            Terminal.printError("guard-stress: \(error)")
            return .badInput
        }
        var text = StoryText(story: story)
        text.width = width
        if arguments.has("--full") { text.maximumRows = nil }
        print(text.text)
        if let htmlPath {
            do {
                try Data(StoryPage(story: story).html.utf8).write(to: URL(fileURLWithPath: htmlPath), options: .atomic)
                print("wrote \(htmlPath)")
            } catch {
                Terminal.printError("guard-stress: could not write \(htmlPath): \(error.localizedDescription)")
                return .badInput
            }
        }
        return story.header.signature.isEmpty ? .passed : .violated
    }
}
