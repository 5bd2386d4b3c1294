import FaultInjector
import FaultInjectorTools
import Foundation

/// The kill matrix as a table: one row per mutant and runner, then the guard's rows and the verdict.
enum KillMatrixPrinter {
    static func table(_ result: KillMatrixResult) -> String {
        let settings = result.settings
        var lines = [
            "Planted-bug kill matrix: \(settings.seeds) seed\(settings.seeds == 1 ? "" : "s") per mutant and runner, "
                + "up to \(Format.seconds(settings.budget)) each, "
                + (settings.isolation.childProcessSettings == nil ? "in process" : "rounds in child processes"),
            "",
            row("mutant", "runner", "caught", "seeds", "median", "worst", "replays", "checks fired"),
        ]
        for cell in result.mutants { lines.append(line(cell)) }
        if !result.guardCells.isEmpty {
            lines.append("")
            for cell in result.guardCells {
                lines.append(
                    row(
                        "guard (unmodified)", cell.runner, cell.violations == 0 ? "clean" : "VIOLATED",
                        "\(cell.seeds - cell.caughtSeeds)/\(cell.seeds)", "", "", "",
                        cell.violations == 0
                            ? "\(Format.count(cell.rounds)) rounds, 0 violations"
                            : kinds(cell) + (cell.firstSeedFile.map { " (\($0))" } ?? ""))
                        + (cell.harnessError.map { "  error: \($0)" } ?? ""))
            }
        }
        lines.append("")
        let survivors = result.survivors
        lines.append(
            survivors.isEmpty
                ? "Every planted bug was caught by at least one runner."
                : "NOT CAUGHT by any runner: \(survivors.joined(separator: ", "))")
        if result.guardFailed { lines.append("The unmodified guard showed violations (see its rows).") }
        return lines.joined(separator: "\n")
    }

    private static func line(_ cell: KillMatrixCell) -> String {
        row(
            cell.target, cell.runner, cell.caught ? "yes" : "NO", "\(cell.caughtSeeds)/\(cell.seeds)",
            cell.medianSeconds.map(seconds) ?? "-", cell.worstSeconds.map(seconds) ?? "-", replayText(cell.replay),
            cell.caught ? kinds(cell) : (cell.harnessError.map { "error: \($0)" } ?? "-"))
    }

    /// `exact 3/3`, `3/3 unchecked` (controlled, nothing recorded to compare), `2/3`, `NO 1/3`, `error`, `-`.
    private static func replayText(_ replay: KillMatrixCell.Replay?) -> String {
        guard let replay else { return "-" }
        if replay.error != nil { return "error" }
        if let exact = replay.exactRuns {
            return replay.replays ? "exact \(exact)/\(replay.runs)" : "NO \(replay.sameSignatureRuns)/\(replay.runs)"
        }
        if replay.exactnessNotChecked != nil {
            return (replay.replays ? "" : "NO ") + "\(replay.sameSignatureRuns)/\(replay.runs) unchecked"
        }
        return "\(replay.reproducedRuns)/\(replay.runs)"
    }

    /// The violation kinds that fired, most frequent first.
    private static func kinds(_ cell: KillMatrixCell) -> String {
        cell.violationsByKind.sorted { ($0.value, $1.key) > ($1.value, $0.key) }.map(\.key).joined(separator: ", ")
    }

    private static func seconds(_ value: Double) -> String {
        String(format: "%.2f s", value)
    }

    private static func row(
        _ target: String, _ runner: String, _ caught: String, _ seeds: String, _ median: String, _ worst: String,
        _ replays: String, _ checks: String
    ) -> String {
        pad(target, 36) + pad(runner, 12) + pad(caught, 8) + pad(seeds, 7) + pad(median, 9) + pad(worst, 9)
            + pad(replays, 11) + checks
    }

    private static func pad(_ text: String, _ width: Int) -> String {
        text.count >= width ? text + " " : text + String(repeating: " ", count: width - text.count)
    }
}
