import FaultInjector
import Foundation

/// The planted-bug kill matrix (`guard-stress mutants`): every planted bug against each runner, with several
/// campaign seeds, each campaign stopping at its first failure or after a time budget; the written seed file of the
/// first failure replayed; and the unmodified guard run the same way, which must show no violation.
///
/// A mutant is *killed* when at least one runner catches it. The matrix passes when every mutant is killed and the
/// guard is clean.
public struct KillMatrix: Sendable {
    /// What to run.
    public struct Settings: Sendable {
        /// The planted bugs to run (all by default).
        public var bugs = PlantedBug.allCases
        /// The runners to run them on.
        public var runners: [RunnerChoice] = [.controlled(ControlledRunner.Settings()), .chaos]
        /// Campaigns per mutant and runner, seeded `firstSeed`, `firstSeed + 1`, ...
        public var seeds = 3
        /// The first campaign seed.
        public var firstSeed: UInt64 = 1
        /// Seconds each campaign may run before it counts as not caught.
        public var budget = 10.0
        /// Whether to run the unmodified guard too.
        public var includesGuard = true
        /// Replay runs of each written seed file.
        public var replayRuns = 3
        /// Where rounds run, by default ``RoundIsolation/automatic``; a crash or hang of a mutant is a finding only in
        /// child processes.
        public var isolation = RoundIsolation.automatic
        /// Where seed files go (a directory per target and runner below it).
        public var outputDirectory = "mutant-seeds"

        /// Every planted bug, both runners, 3 seeds of up to 10 seconds, rounds where ``RoundIsolation/automatic``
        /// says.
        public init() {}
    }

    /// What to run.
    public let settings: Settings

    /// A matrix with `settings`.
    public init(settings: Settings) {
        self.settings = settings
    }

    /// Runs every cell, calling `progress` after each; the guard's cells come last.
    public func run(progress: (KillMatrixCell) -> Void = { _ in }) -> KillMatrixResult {
        let start = MonotonicClock.now
        var cells: [KillMatrixCell] = []
        for bug in settings.bugs {
            for runner in settings.runners {
                let cell = runCell(target: bug.rawValue, bug: bug, runner: runner)
                cells.append(cell)
                progress(cell)
            }
        }
        var guardCells: [KillMatrixCell] = []
        if settings.includesGuard {
            for runner in settings.runners {
                let cell = runCell(target: "guard", bug: nil, runner: runner)
                guardCells.append(cell)
                progress(cell)
            }
        }
        return KillMatrixResult(
            settings: settings, mutants: cells, guardCells: guardCells,
            seconds: Double(MonotonicClock.now - start) / 1e9)
    }

    /// `settings.seeds` campaigns of `target` on `runner`, and a replay of the first seed file written.
    private func runCell(target: String, bug: PlantedBug?, runner: RunnerChoice) -> KillMatrixCell {
        var cell = KillMatrixCell(target: target, runner: runner.name, seeds: settings.seeds)
        let controlled = runner != .chaos
        let configuration = bug?.configuration(controlled: controlled) ?? PlantedBug.commonConfiguration(controlled: controlled)
        let directory = (settings.outputDirectory as NSString).appendingPathComponent("\(target)-\(runner.name)")
        for index in 0..<settings.seeds {
            var campaign = Campaign.Settings()
            campaign.seed = settings.firstSeed &+ UInt64(index)
            campaign.scenario = configuration
            campaign.target = target
            campaign.runner = runner
            campaign.duration = settings.budget
            campaign.stopAtFirstFailure = true
            campaign.maximumSeedFiles = 1
            campaign.isolation = settings.isolation
            campaign.outputDirectory = directory
            campaign.writesSeedFileBeforeEachRound = false
            var firstFailure: Double?
            let prepared: Campaign
            do {
                prepared = try Campaign(settings: campaign)
            } catch {
                // The matrix runs the catalog's own targets, so this would be a bug of the harness: say so.
                if cell.harnessError == nil { cell.harnessError = error.description }
                break
            }
            let summary = prepared.run { progress in
                if progress.failure != nil, firstFailure == nil { firstFailure = progress.elapsed }
            }
            cell.add(summary, detectedAfter: firstFailure)
        }
        if let path = cell.firstSeedFile { cell.replay = replay(path) }
        return cell
    }

    /// Replays the seed file at `path` ``Settings/replayRuns`` times, isolated as the campaigns were.
    private func replay(_ path: String) -> KillMatrixCell.Replay {
        do {
            let file = try SeedFileStore.read(path)
            let replayer = try Replayer(file: file)
            let outcome: Replayer.Outcome
            if let child = settings.isolation.childProcessSettings {
                outcome = try replayer.replay(runs: settings.replayRuns, isolatedBy: child)
            } else {
                outcome = try replayer.replay(runs: settings.replayRuns)
            }
            return KillMatrixCell.Replay(outcome: outcome, recordedSignature: file.failure.signature)
        } catch {
            return KillMatrixCell.Replay(error: "\(error)")
        }
    }
}
