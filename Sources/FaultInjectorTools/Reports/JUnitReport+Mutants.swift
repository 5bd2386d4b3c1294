import FaultInjector
import Foundation

extension JUnitReport {
    /// The kill matrix as one suite (`guard-stress mutants --junit FILE`): one test case per planted bug × runner,
    /// failing when that runner did not catch the bug in any seed, and one per guard row, failing when the guard
    /// showed a violation. (A bug caught by only one runner thus shows one failing case, while the command's exit
    /// code, which asks for at least one runner, is 0.)
    public init(killMatrix result: KillMatrixResult, startedAt: Date) {
        var cases = result.mutants.map { cell -> TestCase in
            var testCase = TestCase(
                name: "\(cell.target) caught by \(cell.runner)", className: "guard-stress.mutants.\(cell.target)",
                seconds: cell.seconds)
            if cell.caught {
                testCase.output = Self.caughtText(cell)
            } else {
                let text = "no violation in \(cell.seeds) seeds of up to \(result.settings.budget) s ("
                    + "\(cell.rounds) rounds)" + (cell.harnessError.map { "\nerror: \($0)" } ?? "")
                testCase.failure = Failure(message: "survived", type: "survived", text: text)
            }
            return testCase
        }
        cases += result.guardCells.map { cell -> TestCase in
            var testCase = TestCase(
                name: "guard clean under \(cell.runner)", className: "guard-stress.mutants.guard", seconds: cell.seconds)
            if cell.violations > 0 || cell.caught {
                let signature = cell.signatures.first ?? cell.violationsByKind.keys.sorted().joined(separator: "+")
                testCase.failure = Failure(
                    message: signature, type: Self.firstKind(of: signature),
                    text: cell.verdict.violations.map { "\($0.kind.rawValue): \($0.message)" }.joined(separator: "\n")
                        + (cell.firstSeedFile.map { "\nseed file: \($0)\nreplay: guard-stress replay \($0)" } ?? ""))
            }
            if let error = cell.harnessError {
                testCase.error = Failure(message: error, type: "harness", text: error)
            }
            return testCase
        }
        self.init(suites: [
            Suite(
                name: "guard-stress mutants", timestamp: ISO8601DateFormatter().string(from: startedAt),
                seconds: result.seconds,
                properties: [
                    ("seeds", String(result.settings.seeds)), ("firstSeed", String(result.settings.firstSeed)),
                    ("budgetSeconds", String(result.settings.budget)),
                    ("runners", result.settings.runners.map(\.name).joined(separator: ",")),
                    ("toolVersion", ToolVersion.current),
                ],
                cases: cases)
        ])
    }

    /// What a caught cell found, for `<system-out>`.
    private static func caughtText(_ cell: KillMatrixCell) -> String {
        var lines = [
            "caught in \(cell.caughtSeeds)/\(cell.seeds) seeds; median "
                + String(format: "%.2f", cell.medianSeconds ?? 0) + " s, worst "
                + String(format: "%.2f", cell.worstSeconds ?? 0) + " s to the first detection",
            "checks fired: " + cell.violationsByKind.keys.sorted().joined(separator: ", "),
        ]
        if let seedFile = cell.firstSeedFile {
            lines.append("seed file: \(seedFile) (replays: \(cell.replay?.replays == true ? "yes" : "no"))")
        }
        return lines.joined(separator: "\n")
    }
}
