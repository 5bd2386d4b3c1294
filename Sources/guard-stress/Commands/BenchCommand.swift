import Foundation

/// `guard-stress bench`: measures KVOGuard's costs (eight groups of figures), prints a table, and writes
/// the figures as JSON on request.
enum BenchCommand {
    static func run(_ words: [String]) throws -> ExitCode {
        let arguments = try ParsedArguments(
            words, options: ["--json", "--filter"], flags: ["--quick", "--list", "--force", "--help", "-h"])
        if arguments.has("--help") || arguments.has("-h") {
            print(HelpText.bench)
            return .passed
        }
        guard arguments.positionals.isEmpty else {
            throw UsageError("bench takes no positional arguments (got '\(arguments.positionals[0])')")
        }
        let filter = try arguments.string("--filter").map(FigureFilter.init)
        let plan = try BenchPlan(groups: BenchSuite.groups, filter: filter)
        if arguments.has("--list") {
            print(list(plan))
            return .passed
        }
        let file = try arguments.string("--json").map { try FigureFile(path: $0, force: arguments.has("--force")) }
        let scale = BenchScale(isQuick: arguments.has("--quick"))

        #if DEBUG
        Terminal.printError(
            "guard-stress bench: this is a debug build, whose numbers mean little; measure with "
                + "'swift run -c release guard-stress bench'")
        #endif
        let started = Stopwatch.now()
        let outcome = BenchSuite.run(plan, scale: scale) { title, seconds in
            if let seconds {
                Terminal.printError("guard-stress bench:   done in \(Format.seconds(seconds))")
            } else {
                Terminal.printError("guard-stress bench: measuring \(title)")
            }
        }
        let seconds = Double(Stopwatch.now() &- started) / 1e9
        print(BenchTable.render(outcome.sections, heading: heading(scale: scale, seconds: seconds)))
        if let file {
            do {
                ReportFiles.tell(try file.write(outcome.figures), what: "figure list")
            } catch {
                Terminal.printError("guard-stress: --json could not write '\(file.path)': \(error)")
                return .badInput
            }
        }
        for problem in outcome.problems {
            Terminal.printError("guard-stress bench: \(problem)")
        }
        return outcome.problems.isEmpty ? .passed : .violated
    }

    private static func heading(scale: BenchScale, seconds: Double) -> [String] {
        #if DEBUG
        let configuration = "DEBUG build (numbers not meaningful)"
        #else
        let configuration = "release build"
        #endif
        return [
            "KVOGuard bench: \(configuration), \(scale.isQuick ? "--quick" : "full run"), \(Format.seconds(seconds)); "
                + "each figure the median of \(scale.repetitions) repetitions after \(scale.warmUps) warm-up (fewer for "
                + "heap bytes and stress runs; growth is one long run); ratio = value ÷ baseline, same run",
            "machine: \(MachineDescription.current)",
        ]
    }

    private static func list(_ plan: BenchPlan) -> String {
        var lines: [String] = []
        for section in plan.sections {
            lines.append(section.group.title)
            for figure in section.figures {
                let baseline = figure.baseline.map { " (vs \($0))" } ?? ""
                lines.append("  \(figure.name) [\(figure.unit.rawValue)]\(baseline)")
                lines.append("      \(figure.summary)")
            }
        }
        return lines.joined(separator: "\n")
    }
}
