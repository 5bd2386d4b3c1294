import FaultInjector
import Foundation

extension StressReport {
    /// One cell of the kill matrix: a planted bug (or the guard) on one runner.
    public struct MutantCell: Codable, Sendable, Equatable {
        /// The target: a planted bug's name, or `guard`.
        public var target: String
        /// `controlled` or `chaos`.
        public var runner: String
        /// Whether any seed caught it (for the guard: whether it showed a violation).
        public var caught: Bool
        /// Campaigns run.
        public var seeds: Int
        /// Campaigns that found a failure.
        public var caughtSeeds: Int
        /// Seconds from each catching campaign's start to its first failure, in seed order.
        public var detectionSeconds: [Double]
        /// Their median (`null` when none caught it).
        public var medianSeconds: Double?
        /// Their maximum (`null` when none caught it).
        public var worstSeconds: Double?
        /// Violations by kind over all its campaigns: the oracle checks that fired.
        public var violationsByKind: [String: Int]
        /// Each catching campaign's first failure signature.
        public var signatures: [String]
        /// Rounds run.
        public var rounds: Int
        /// The first seed file written (`null` if none).
        public var seedFile: String?
        /// Whether that file replays: every run with its signature and (controlled) exactly; a chaos file at least
        /// once. `null` when no file was written.
        public var replays: Bool?
        /// Replay runs made.
        public var replayRuns: Int?
        /// Replay runs with the recorded signature.
        public var replaySameSignatureRuns: Int?
        /// Controlled files: replay runs that matched the recording exactly (`null` when
        /// ``replayExactnessNotChecked`` says why nothing could be compared).
        public var replayExactRuns: Int?
        /// Controlled files whose replay could not be compared with a recording: why.
        public var replayExactnessNotChecked: String?
        /// Why a campaign or the replay could not run, if one could not.
        public var error: String?
    }

    /// The `mutants` section: the planted-bug kill matrix.
    public struct Mutants: Codable, Sendable, Equatable {
        /// Campaigns per mutant and runner.
        public var seeds: Int
        /// The first campaign seed.
        public var firstSeed: String
        /// Seconds each campaign could run.
        public var budgetSeconds: Double
        /// Every planted bug run.
        public var bugs: [String]
        /// Whether every one of them was caught by at least one runner.
        public var allCaught: Bool
        /// The planted bugs no runner caught.
        public var survivors: [String]
        /// Whether the unmodified guard showed no violation (`null` when it did not run).
        public var guardClean: Bool?
        /// One cell per planted bug and runner, bug by bug.
        public var cells: [MutantCell]
        /// The guard's cells, one per runner.
        public var guardCells: [MutantCell]
    }

    /// The report of a kill matrix that exited with `exitCode`; its totals and violations cover every cell.
    public init(killMatrix result: KillMatrixResult, isolation: RoundIsolation, exitCode: Int, createdAt: Date = Date()) {
        self.createdAt = ISO8601DateFormatter().string(from: createdAt)
        command = "mutants"
        result.passed ? (self.result = "pass") : (self.result = "fail")
        self.exitCode = exitCode
        target = "planted-bugs"
        let runners = result.settings.runners
        runner = Runner(runners.first { $0 != .chaos } ?? .chaos)
        runner.name = runners.map(\.name).joined(separator: "+")
        self.isolation = Isolation(isolation, runner: runners.first ?? .chaos, statistics: nil)
        let all = result.mutants + result.guardCells
        var merged = Verdict()
        for cell in all { merged.merge(cell.verdict) }
        let operations = all.reduce(0) { $0 + $1.operations }
        totals = Totals(
            rounds: all.reduce(0) { $0 + $1.rounds }, operations: operations,
            deliveries: all.reduce(0) { $0 + $1.deliveries }, steps: all.reduce(0) { $0 + $1.steps },
            seconds: result.seconds, operationsPerSecond: result.seconds > 0 ? Double(operations) / result.seconds : 0)
        violations = Violations(merged)
        mutants = Mutants(
            seeds: result.settings.seeds, firstSeed: String(result.settings.firstSeed),
            budgetSeconds: result.settings.budget, bugs: result.settings.bugs.map(\.rawValue),
            allCaught: result.survivors.isEmpty, survivors: result.survivors,
            guardClean: result.guardCells.isEmpty ? nil : !result.guardFailed,
            cells: result.mutants.map(MutantCell.init), guardCells: result.guardCells.map(MutantCell.init))
    }
}

extension StressReport.MutantCell {
    init(_ cell: KillMatrixCell) {
        target = cell.target
        runner = cell.runner
        caught = cell.caught
        seeds = cell.seeds
        caughtSeeds = cell.caughtSeeds
        detectionSeconds = cell.detectionSeconds
        medianSeconds = cell.medianSeconds
        worstSeconds = cell.worstSeconds
        violationsByKind = cell.violationsByKind
        signatures = cell.signatures
        rounds = cell.rounds
        seedFile = cell.firstSeedFile
        replays = cell.replay?.replays
        replayRuns = cell.replay?.runs
        replaySameSignatureRuns = cell.replay?.sameSignatureRuns
        replayExactRuns = cell.replay?.exactRuns
        replayExactnessNotChecked = cell.replay?.exactnessNotChecked
        error = cell.harnessError ?? cell.replay?.error
    }
}
