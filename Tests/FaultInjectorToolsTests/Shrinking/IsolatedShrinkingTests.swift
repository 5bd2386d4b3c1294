@testable import FaultInjector
import FaultInjectorTestSupport
@testable import FaultInjectorTools
import Foundation
import GuardCore
import XCTest

/// Shrinking and explaining with candidate runs in child processes (the built `guard-stress` serves them): a file
/// whose failure is a crash of the target shrinks to a smaller file that still crashes, and explain tells such a
/// file's run as what it is (the process died) instead of dying with it; an ordinary file shrinks to the same result
/// in child processes as in process.
final class IsolatedShrinkingTests: XCTestCase {
    private var directory: TemporaryDirectory!

    override func setUpWithError() throws {
        directory = try TemporaryDirectory("fi-isolated-shrinking")
    }

    override func tearDown() {
        directory?.remove()
        directory = nil
    }

    private func childProcesses() throws -> ChildProcessSettings {
        ChildProcessSettings(executable: try GuardStressProcess.executable().path, arguments: ["__serve-rounds"])
    }

    /// The shrinker and the kill matrix follow the one isolation default, ``RoundIsolation/automatic``: in process in
    /// a program that serves no rounds, child processes running its round server once it registered one.
    func testShrinkAndKillMatrixSettingsDefaultToTheRegisteredRoundServer() throws {
        XCTAssertNil(ShrinkSettings().isolation.childProcessSettings)
        XCTAssertNil(KillMatrix.Settings().isolation.childProcessSettings)
        RoundIsolation.roundServer = try childProcesses()
        defer { RoundIsolation.roundServer = nil }
        XCTAssertEqual(ShrinkSettings().isolation.childProcessSettings?.arguments, ["__serve-rounds"])
        XCTAssertEqual(KillMatrix.Settings().isolation.childProcessSettings?.arguments, ["__serve-rounds"])
    }

    /// A controlled seed file against `fixture-segv` (three workers, six operations each, some of them observes),
    /// whose failure is the crash a child process reported when it ran.
    private func crashingFile() throws -> (SeedFile, Scenario) {
        let scenario = Scenario(configuration: ControlledFixtures.configuration(workers: 3, operations: 6), seed: 7)
        XCTAssertTrue(
            scenario.operations.joined().contains { $0.description.hasPrefix("observe") }, "the scenario must observe")
        var file = SeedFile(
            roundAboutToRun: scenario, target: "fixture-segv", runner: .controlled(ControlledRunner.Settings()),
            toolVersion: ToolVersion.current)
        file.operations = scenario.operations.map { $0.map(\.description) }
        let probe = try Replayer(file: file).replay(runs: 1, isolatedBy: try childProcesses())
        XCTAssertEqual(probe.crashedRuns, 1)
        let verdict = try XCTUnwrap(probe.verdicts.first)
        XCTAssertEqual(verdict.signature, BuildSanitizer.segfaultSignature)
        return (file.finished(with: verdict, scenario: scenario), scenario)
    }

    func testAFileThatCrashesItsTargetShrinksToASmallerFileThatStillCrashes() throws {
        let (file, scenario) = try crashingFile()
        var settings = ShrinkSettings()
        settings.isolation = .childProcesses(try childProcesses())
        settings.verificationRuns = 3
        let result = try Shrinker(file: file, fileName: "crash.json", settings: settings).shrink()
        guard case .shrunk(let outcome) = result else { return XCTFail("not shrunk: \(result)") }

        XCTAssertEqual(outcome.file.failure.signature, BuildSanitizer.segfaultSignature)
        XCTAssertLessThan(outcome.scenario.operationCount, scenario.operationCount)
        XCTAssertLessThan(outcome.shrunk.workers, 3)
        XCTAssertEqual(outcome.scenario.operationCount, 1, "one observe is all it takes: \(outcome.scenario.operations)")
        XCTAssertNil(outcome.result, "the runs happened in child processes")
        XCTAssertGreaterThan(outcome.isolation?.processesLost ?? 0, 0, "candidates crashed their processes")
        XCTAssertTrue(outcome.verified)
        XCTAssertEqual(outcome.verification?.sameSignatureRuns, 3)
        XCTAssertEqual(outcome.file.shrunk?.scheduleFromStrategy, true, "the strategy and seed regenerate the run")

        let path = try SeedFileStore.write(outcome.file, into: directory.path)
        let replay = try Replayer(file: try SeedFileStore.read(path)).replay(runs: 2, isolatedBy: try childProcesses())
        XCTAssertEqual(replay.sameSignatureRuns, 2, "\(replay.signatures)")
        XCTAssertEqual(replay.crashedRuns, 2)
    }

    func testAnOrdinaryFileShrinksTheSameInChildProcessesAsInProcess() throws {
        let scenario = Scenario(configuration: ControlledFixtures.configuration(workers: 3, operations: 8), seed: 5)
        let failing = ControlledRunner(settings: .init()).runAndEvaluate(scenario, against: RawRuntimeTarget())
        XCTAssertFalse(failing.passed)
        let file = SeedFile(result: failing, toolVersion: ToolVersion.current)

        var settings = ShrinkSettings()
        settings.verificationRuns = 2
        guard case .shrunk(let inProcess) = try Shrinker(file: file, settings: settings).shrink() else {
            return XCTFail("in process: not shrunk")
        }
        settings.isolation = .childProcesses(try childProcesses())
        guard case .shrunk(let isolated) = try Shrinker(file: file, settings: settings).shrink() else {
            return XCTFail("isolated: not shrunk")
        }
        XCTAssertEqual(isolated.file.operations, inProcess.file.operations)
        XCTAssertEqual(isolated.file.schedule, inProcess.file.schedule)
        XCTAssertEqual(isolated.file.failure, inProcess.file.failure)
        XCTAssertEqual(isolated.candidates, inProcess.candidates)
        XCTAssertTrue(isolated.verified)
        XCTAssertEqual(isolated.verification?.exactRuns, 2, "\(isolated.verification?.mismatches ?? [])")
        XCTAssertEqual(isolated.isolation?.processesLost, 0)
    }

    /// A guided round (the shrinker's ``GuidedStrategy``) run by a child takes the planned schedule: its seed file
    /// records the schedule of the plan's own in-process run.
    func testAGuidedRoundInAChildFollowsItsPlan() throws {
        let scenario = Scenario(configuration: ControlledFixtures.configuration(workers: 3, operations: 6), seed: 9)
        let recorded = ControlledRunner(settings: .init()).runAndEvaluate(scenario, against: RawRuntimeTarget())
        let schedule = try XCTUnwrap(recorded.recording.controlled?.schedule)
        XCTAssertGreaterThan(SwitchPlan(schedule).preemptionOrder.count, 1)
        let plan = SwitchPlan(schedule).keeping(preemptions: Array(SwitchPlan(schedule).preemptionOrder.prefix(1)))
        var inProcess = ControlledRunner(settings: .init())
        inProcess.customStrategy = { _ in GuidedStrategy(plan: plan) }
        let expected = try XCTUnwrap(inProcess.runAndEvaluate(scenario, against: RawRuntimeTarget()).recording.controlled?.schedule)

        var file = SeedFile(result: recorded, toolVersion: ToolVersion.current)
        file.schedule = nil
        let executor = CandidateExecutor(
            file: file, target: RawRuntimeTarget(), runner: try file.makeRunnerChoice(),
            isolation: .childProcesses(try childProcesses()))
        let run = executor.run(scenario, .guided(plan))
        XCTAssertNil(executor.failure)
        XCTAssertFalse(run.signature.isEmpty, "the raw runtime fails these operations under any schedule")
        XCTAssertEqual(run.schedule, expected, "the child followed the plan")
        XCTAssertNotEqual(SwitchPlan(expected), SwitchPlan(schedule), "the plan left preemptions out")
    }

    /// The command line: `shrink` of a crash file exits 0 with a smaller file that `replay` shows crashing, and
    /// `explain` of it says the process died instead of dying; `--in-process` is refused with child-process options.
    func testTheCommandsShrinkAndExplainACrashFileWithoutDying() throws {
        let (file, _) = try crashingFile()
        let input = try SeedFileStore.write(file, into: directory.path)
        let output = directory.file("crash.shrunk.json")
        let shrink = try GuardStressProcess.run(
            ["shrink", input, "--out", output, "--verify", "2"], in: directory, timeout: 120)
        XCTAssertEqual(shrink.status, 0, shrink.stdout + shrink.stderr)
        XCTAssertTrue(shrink.stdout.contains("each candidate runs in a child process"), shrink.stdout)
        XCTAssertTrue(shrink.stdout.contains("the signature came back in 2/2"), shrink.stdout)
        let shrunk = try SeedFileStore.read(output)
        XCTAssertEqual(shrunk.failure.signature, BuildSanitizer.segfaultSignature)
        XCTAssertEqual(shrunk.operations?.joined().count, 1)

        let replay = try GuardStressProcess.run(["replay", output, "--runs", "2"], in: directory, timeout: 60)
        XCTAssertEqual(replay.status, 1, replay.stdout)
        XCTAssertTrue(replay.stdout.contains("with the recorded signature in 2/2"), replay.stdout)

        let page = directory.file("crash.html")
        let explain = try GuardStressProcess.run(["explain", output, "--html", page], in: directory, timeout: 60)
        XCTAssertEqual(explain.status, 1, explain.stdout + explain.stderr)
        XCTAssertTrue(explain.stdout.contains("its process died, \(BuildSanitizer.segfaultSignature)"), explain.stdout)
        XCTAssertTrue(explain.stdout.contains("worker 0: observe"), explain.stdout)
        let html = try String(contentsOfFile: page, encoding: .utf8)
        XCTAssertTrue(html.contains(BuildSanitizer.segfaultSignature))

        let refused = try GuardStressProcess.run(
            ["shrink", input, "--in-process", "--stall-timeout", "2"], in: directory, timeout: 60)
        XCTAssertEqual(refused.status, 2, refused.stdout + refused.stderr)
    }
}
