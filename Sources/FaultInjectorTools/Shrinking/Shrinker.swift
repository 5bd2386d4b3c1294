import FaultInjector
import GuardCore

/// Reduces a failing seed file to a smaller one with the same failure signature: fewer workers, operations,
/// controllers, objects and key paths and, for a controlled file, a schedule with fewer steps and preemptions.
///
/// Passes, repeated while any of them makes progress: delta debugging (``DeltaDebugging``) over the workers, then
/// over each worker's operations; dropping workers left without operations; simpler operations (no handler action,
/// fewer options); fewer slots and keys (one merged into another); slots renumbered from 0. Then, for a controlled
/// file, delta debugging over the schedule's preemptions. Every candidate works on operation texts only, so new
/// operation kinds shrink without any change here.
///
/// A race stays a race. Once the original reproduced, its workers are run one after another without preemption,
/// starting with each worker in turn (``RaceVerdict``). If none of those serial orders fails with the signature, the
/// failure needs the workers to overlap, and every candidate kept must too: it must fail, and pass every serial
/// order (so a two-thread double removal never shrinks to one removal on one thread). If a serial order fails, the
/// failure is a sequential misuse, said so, and shrunk as such (down to one worker if it comes to that).
///
/// A candidate counts as failing when a run of it shows exactly the file's signature. A controlled candidate runs
/// with the file's strategy and seed and, if that does not fail, guided by the current smallest run's schedule
/// (``GuidedStrategy``); either way its schedule is recorded, so the shrunk file replays exactly. A chaos candidate
/// runs up to ``ShrinkSettings/runsPerCandidate`` times and counts as failing at its first failing run.
///
/// Candidates run where ``ShrinkSettings/isolation`` says: in child processes a candidate that crashes, traps or hangs
/// is a verdict like any other (so a `crash(SIGSEGV)` file shrinks to a smaller one that still crashes), and the
/// verification replays run there too.
public struct Shrinker: Sendable {
    /// The file being shrunk.
    public let file: SeedFile
    /// Its name, for the shrunk file's note.
    public let fileName: String
    /// The system it runs against (the file's own).
    public let target: any SystemUnderTest
    /// Budgets and runs per candidate.
    public let settings: ShrinkSettings
    let runner: RunnerChoice
    let scenario: Scenario
    let recordedSchedule: Schedule?

    /// A shrinker for `file` (named `fileName` in the note it leaves), run against `target` (by default the one the
    /// file names; another target's failure is another failure).
    public init(
        file: SeedFile, fileName: String = "", target: (any SystemUnderTest)? = nil, settings: ShrinkSettings = .init()
    ) throws(SeedFileError) {
        guard !file.failure.signature.isEmpty else {
            throw .nonsensical("it records no failure (its signature is empty), so there is nothing to shrink")
        }
        guard let resolved = target ?? TargetCatalog.make(file.target, diagnostics: CountingSink(keepsEvents: false))
        else { throw .unknownTarget(file.target) }
        self.file = file
        self.fileName = fileName
        self.target = resolved
        self.settings = settings
        runner = try file.makeRunnerChoice()
        scenario = try file.makeScenario()
        recordedSchedule = target == nil || target?.name == file.target ? try file.makeSchedule() : nil
    }

    /// Reproduces the file's failure, shrinks it within the budget, and replays the result to confirm it.
    public func shrink(progress: @escaping (ShrinkProgress) -> Void = { _ in }) -> ShrinkResult {
        let search = ShrinkSearch(shrinker: self, progress: progress)
        guard search.reproduceOriginal() else {
            return .notReproduced(NotReproduced(expected: file.failure.signature, signatures: search.originalSignatures))
        }
        let original = ShrinkSize(search.best!.run)
        search.run()
        let best = search.best!
        var shrunkFile = best.run.file
        let controlled = runner.controlledSettings != nil
        shrunkFile.shrunk = SeedFile.Shrinking(
            from: fileName, originalWorkers: original.workers, originalOperations: original.operations,
            originalSteps: original.steps, candidates: search.candidates,
            runsPerCandidate: controlled ? nil : settings.runsPerCandidate,
            scheduleFromStrategy: controlled ? best.scheduleFromStrategy : nil)
        shrunkFile.shrunk?.needsConcurrency = search.race?.needsConcurrency
        // The same failure: what the file says it shows still holds.
        shrunkFile.description = file.description
        let seconds = search.elapsed
        var verification: Replayer.Outcome?
        if settings.verificationRuns > 0 {
            progress(
                ShrinkProgress(
                    note: "verifying: replaying the shrunk file \(settings.verificationRuns) times",
                    size: ShrinkSize(best.run), candidates: search.candidates, seconds: seconds))
            verification = verify(shrunkFile)
            shrunkFile.shrunk?.verified = ShrinkOutcome.isVerified(verification, asked: settings.verificationRuns)
        }
        let explored = exploreRace(best.scenario, progress: progress, seconds: seconds, size: ShrinkSize(best.run))
        return .shrunk(
            ShrinkOutcome(
                original: original, shrunk: ShrinkSize(best.run), file: shrunkFile, scenario: best.scenario,
                result: best.run.result, candidates: search.candidates, runs: search.runs, seconds: seconds,
                isolation: search.isolationStatistics,
                budgetExhausted: search.exhaustedBudget, verification: verification,
                verificationRuns: settings.verificationRuns,
                race: search.race ?? .sequential(firstWorker: 0, serialOrders: 0), explored: explored))
    }

    /// Explores the shrunk scenario (in child processes when candidates ran in them): whether it still fails in some
    /// interleaving and passes in another. `nil` for one worker, a chaos file or no budget.
    private func exploreRace(
        _ scenario: Scenario, progress: (ShrinkProgress) -> Void, seconds: Double, size: ShrinkSize
    ) -> ExploredRace? {
        let busy = scenario.operations.filter { !$0.isEmpty }.count
        guard settings.raceExplorationExecutions > 0, busy > 1, runner.controlledSettings != nil else { return nil }
        let explored = ExploredRace.explore(
            scenario, failingWith: file.failure.signature, against: target,
            maxExecutions: settings.raceExplorationExecutions,
            childExecutable: settings.isolation.childProcessSettings?.executable)
        progress(ShrinkProgress(note: explored.summary, size: size, candidates: 0, seconds: seconds))
        return explored
    }

    /// Replays the shrunk file ``ShrinkSettings/verificationRuns`` times, where candidates ran.
    private func verify(_ shrunkFile: SeedFile) -> Replayer.Outcome? {
        guard let replayer = try? Replayer(file: shrunkFile, target: target) else { return nil }
        if let isolated = settings.isolation.childProcessSettings {
            return try? replayer.replay(runs: settings.verificationRuns, isolatedBy: isolated)
        }
        return try? replayer.replay(runs: settings.verificationRuns)
    }
}
