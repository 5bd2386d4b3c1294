import FaultInjector
import Foundation
import GuardCore

/// How one shrinking candidate is scheduled.
enum CandidateSchedule {
    /// Chaos: real threads, no schedule.
    case chaos
    /// Controlled, following a recorded schedule step for step.
    case recorded(Schedule)
    /// Controlled, with the file's strategy and seed.
    case strategy
    /// Controlled, following a plan of switches (``GuidedStrategy``).
    case guided(SwitchPlan)
    /// Controlled, the workers one after another without preemption, worker `first` first and then the others in
    /// turn: a serial order, to tell a race from a sequential misuse. Judged only (a run whose process died counts
    /// with its crash's signature), never adopted.
    case serial(first: Int)

    /// The plan of a serial order starting with worker `first`.
    static func serialPlan(first: Int) -> SwitchPlan {
        var plan = SwitchPlan()
        plan.first = first
        return plan
    }
}

/// One candidate run, judged: what the shrinker needs from it, whether it ran in this process or in a child.
struct CandidateRun {
    /// The oracle's signature (empty when it held); for a run whose process died, the crash's (`crash(SIGSEGV)`).
    let signature: String
    /// The scenario run.
    let scenario: Scenario
    /// The schedule a controlled run took; `nil` for chaos, and for a run whose process died (nobody saw it).
    let schedule: Schedule?
    /// The run written down (for a run whose process died: its scenario, runner and the crash).
    let file: SeedFile
    /// The run itself, when it ran in this process.
    let result: RunResult?

    /// Whether the run failed with exactly `signature`.
    func fails(with expected: String) -> Bool { !signature.isEmpty && signature == expected }
}

/// Runs shrinking candidates in this process or, with ``RoundIsolation/childProcesses(_:)``, each in a child
/// process (``ChildRoundHost``), so a candidate that crashes, traps or hangs is a verdict (`crash(SIGSEGV)`, `trap`,
/// `deadlock`) and the shrinker goes on.
///
/// A candidate whose process died has no recorded schedule. A controlled one still replays when its schedule came
/// from the file's strategy and seed (they regenerate it); a guided one (``GuidedStrategy``) does not, so it counts
/// as not failing (``CandidateRun/schedule`` is `nil` and the shrinker keeps it out).
final class CandidateExecutor {
    private let file: SeedFile
    private let target: any SystemUnderTest
    private let runnerChoice: RunnerChoice
    private let host: ChildRoundHost?
    private let stallTimeout: Double
    /// Set when no child process could run a candidate: the search stops and says why.
    private(set) var failure: IsolationError?

    /// An executor of `file`'s candidates against `target` (which must be one children can make by name when
    /// isolated), running each as `isolation` says.
    init(file: SeedFile, target: any SystemUnderTest, runner: RunnerChoice, isolation: RoundIsolation) {
        self.file = file
        self.target = target
        runnerChoice = runner
        if let settings = isolation.childProcessSettings {
            host = ChildRoundHost(settings: settings, roundsPerProcess: settings.roundsPerProcess(for: runner))
            stallTimeout = settings.stallTimeout
        } else {
            host = nil
            stallTimeout = ChaosRunner().deadlockTimeout
        }
    }

    deinit {
        host?.finish()
    }

    /// What isolation cost so far (`nil` in process).
    var isolationStatistics: IsolationStatistics? { host?.statistics }

    /// Runs `scenario` once, scheduled as `schedule` says.
    func run(_ scenario: Scenario, _ schedule: CandidateSchedule) -> CandidateRun {
        guard let host else { return runInProcess(scenario, schedule) }
        return run(scenario, schedule, in: host)
    }

    // MARK: In process

    private func runInProcess(_ scenario: Scenario, _ schedule: CandidateSchedule) -> CandidateRun {
        let runner: any ScenarioRunner
        switch schedule {
        case .chaos:
            runner = ChaosRunner()
        case .recorded(let recorded):
            runner = ControlledRunner(settings: controlledSettings, replaying: recorded)
        case .strategy:
            runner = ControlledRunner(settings: controlledSettings)
        case .guided(let plan):
            var guided = ControlledRunner(settings: controlledSettings)
            guided.customStrategy = { _ in GuidedStrategy(plan: plan) }
            runner = guided
        case .serial(let first):
            var serial = ControlledRunner(settings: controlledSettings)
            serial.customStrategy = { _ in GuidedStrategy(plan: CandidateSchedule.serialPlan(first: first)) }
            runner = serial
        }
        let result = runner.runAndEvaluate(scenario, against: target)
        return CandidateRun(
            signature: result.verdict.signature, scenario: scenario, schedule: result.recording.controlled?.schedule,
            file: SeedFile(result: result, toolVersion: ToolVersion.current), result: result)
    }

    private var controlledSettings: ControlledRunner.Settings {
        var settings = runnerChoice.controlledSettings ?? .init()
        settings.recordsTrace = false
        return settings
    }

    // MARK: In a child process

    private func run(_ scenario: Scenario, _ schedule: CandidateSchedule, in host: ChildRoundHost) -> CandidateRun {
        var request = RoundRequest(
            file: candidateFile(scenario), target: target.name == file.target ? nil : target.name,
            stallTimeout: stallTimeout, seedFile: .always)
        switch schedule {
        case .chaos, .strategy: break
        case .recorded(let recorded): request.file.schedule = SeedFile.RecordedSchedule(recorded, historyDigest: nil)
        case .guided(let plan): request.guide = plan
        case .serial(let first): request.guide = CandidateSchedule.serialPlan(first: first)
        }
        let crashed: Verdict
        switch host.run(request, operations: scenario.operationCount) {
        case .answered(let answer):
            guard let verdict = answer.verdict else {
                return passing(scenario, error: IsolationError(
                    description: "the child process could not run a candidate: \(answer.error ?? "no reason given")"))
            }
            guard !verdict.passed else {
                return CandidateRun(signature: "", scenario: scenario, schedule: nil, file: request.file, result: nil)
            }
            let written = answer.seedFile ?? request.file.finished(with: verdict, scenario: scenario)
            let taken = (try? written.makeSchedule()) ?? nil
            if case .guided = schedule, taken == nil {
                // A guided run is replayable only from the schedule it took.
                return CandidateRun(signature: "", scenario: scenario, schedule: nil, file: request.file, result: nil)
            }
            return CandidateRun(signature: verdict.signature, scenario: scenario, schedule: taken, file: written, result: nil)
        case .ended(let verdict, _):
            crashed = verdict
        case .failed(let error):
            return passing(scenario, error: error)
        case .interrupted:
            return passing(scenario, error: IsolationError(description: "the candidate's run was stopped before it finished"))
        }
        // The process died: its schedule was never reported. One from the strategy regenerates; a guided one not.
        if case .guided = schedule {
            return CandidateRun(signature: "", scenario: scenario, schedule: nil, file: request.file, result: nil)
        }
        return CandidateRun(
            signature: crashed.signature, scenario: scenario, schedule: nil,
            file: request.file.finished(with: crashed, scenario: scenario), result: nil)
    }

    /// The seed file a child runs for `scenario`: the file's target, runner, strategy and seed, the candidate's
    /// operations written out, no schedule.
    private func candidateFile(_ scenario: Scenario) -> SeedFile {
        var candidate = SeedFile(
            roundAboutToRun: scenario, target: file.target, runner: runnerChoice, toolVersion: ToolVersion.current)
        candidate.operations = scenario.operations.map { $0.map(\.description) }
        return candidate
    }

    /// A run that could not be made counts as not failing; the first such error stops the search.
    private func passing(_ scenario: Scenario, error: IsolationError) -> CandidateRun {
        if failure == nil { failure = error }
        return CandidateRun(signature: "", scenario: scenario, schedule: nil, file: candidateFile(scenario), result: nil)
    }
}
