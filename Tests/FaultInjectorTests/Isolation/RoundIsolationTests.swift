@testable import FaultInjector
import FaultInjectorTestSupport
import Foundation
import GuardCore
import XCTest

/// Round isolation through the library API: `Campaign` and `Replayer` with child processes (the built
/// `guard-stress` serves the rounds), against the same campaign in process; and the pieces a crash verdict is made
/// of.
final class RoundIsolationTests: XCTestCase {
    private var directory: TemporaryDirectory!

    override func setUpWithError() throws {
        directory = try TemporaryDirectory("fi-round-isolation")
    }

    override func tearDown() {
        directory?.remove()
        directory = nil
    }

    private func childProcesses() throws -> ChildProcessSettings {
        ChildProcessSettings(executable: try GuardStressProcess.executable().path, arguments: ["__serve-rounds"])
    }

    private func controlledRawCampaign(_ isolation: RoundIsolation, out: String) -> Campaign.Settings {
        var settings = Campaign.Settings()
        settings.seed = 21
        settings.target = "raw"
        settings.runner = .controlled(ControlledRunner.Settings())
        settings.scenario = .controlledDefault
        settings.operationBudget = 1_500
        settings.duration = 60
        settings.outputDirectory = out
        settings.isolation = isolation
        return settings
    }

    /// Controlled rounds share processes (four per process here): every round is answered, the processes are
    /// replaced on schedule, nothing is left `.running`, and the raw runtime's misuse is found as it is in process.
    func testAnIsolatedControlledCampaignSharesProcessesBetweenRounds() throws {
        var isolated = try childProcesses()
        isolated.roundsPerProcess = 4
        let summary = try Campaign(settings: controlledRawCampaign(.childProcesses(isolated), out: directory.file("there"))).run()
        XCTAssertNil(summary.harnessError)
        XCTAssertGreaterThan(summary.rounds, 4, "several processes take part")
        XCTAssertFalse(summary.passed, "the raw runtime fails")
        XCTAssertNotNil(summary.verdict.runtimeMisuses[.notRegistered], "\(summary.verdict.runtimeMisuses)")
        XCTAssertGreaterThan(summary.operations, 1_000)
        let statistics = try XCTUnwrap(summary.isolation)
        XCTAssertEqual(statistics.rounds, summary.rounds)
        XCTAssertEqual(statistics.processesReady, (summary.rounds + 3) / 4)
        XCTAssertEqual(statistics.processesLost, 0)
        XCTAssertGreaterThan(statistics.meanStartupSeconds, 0)
        XCTAssertGreaterThan(statistics.busySeconds, 0)
        XCTAssertEqual(summary.verdict.checks[Verdict.survivalCheck], summary.rounds)
        XCTAssertEqual(summary.roundRecords.map(\.round), Array(0..<summary.rounds))
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: directory.file("there"))
            .filter { $0.hasSuffix(".running.json") }
        XCTAssertEqual(leftovers, [])
    }

    func testAnIsolatedCampaignGoesOnAfterCrashesAndItsSeedFilesReplayTheCrash() throws {
        var settings = Campaign.Settings()
        settings.seed = 11
        settings.target = "fixture-segv"
        settings.scenario.workers = 1
        settings.scenario.operationsPerWorker = 4
        settings.operationBudget = 40
        settings.duration = 60
        settings.outputDirectory = directory.file("segv")
        settings.isolation = .childProcesses(try childProcesses())
        var progressed: [Campaign.Progress] = []
        let summary = try Campaign(settings: settings).run { progressed.append($0) }
        XCTAssertEqual(summary.rounds, 10, "every round ran")
        XCTAssertEqual(progressed.map(\.rounds), Array(1...10))
        let crashed = summary.roundRecords.filter { !$0.passed }
        XCTAssertFalse(crashed.isEmpty)
        XCTAssertLessThan(crashed.count, 10)
        XCTAssertEqual(Set(crashed.map(\.signature)), [BuildSanitizer.segfaultSignature])
        XCTAssertEqual(summary.verdict.crashSignals, [BuildSanitizer.crashCause(ofSignal: "SIGSEGV"): crashed.count])
        XCTAssertEqual(summary.isolation?.processesLost, crashed.count)
        XCTAssertEqual(progressed.compactMap(\.failure).map(\.round), crashed.map(\.round))
        XCTAssertEqual(summary.seedFiles.count, crashed.count)

        let path = try XCTUnwrap(summary.failures.first?.seedFile)
        let file = try SeedFileStore.read(path)
        XCTAssertEqual(file.failure.signature, BuildSanitizer.segfaultSignature)
        XCTAssertEqual(file.operations?.first?.count, 4, "the parent writes the crashed round's operations out")
        let outcome = try Replayer(file: file).replay(runs: 2, isolatedBy: try childProcesses())
        XCTAssertEqual(outcome.signatures, Array(repeating: BuildSanitizer.segfaultSignature, count: 2))
        XCTAssertEqual(outcome.sameSignatureRuns, 2)
        XCTAssertEqual(outcome.crashedRuns, 2)
        XCTAssertNil(outcome.lastResult, "runs in child processes bring back verdicts, not recordings")
        XCTAssertEqual(outcome.isolation?.processesLost, 2)
    }

    /// A hang the runner's watchdog cannot see (in the teardown, after the workers finished) is caught by the
    /// parent's own timeout: the process is killed and the round is a deadlock.
    func testAHangOutsideTheWorkersRunIsCaughtByTheParentsTimeout() throws {
        var children = try childProcesses()
        children.stallTimeout = 1
        children.answerAllowance = 1
        var settings = Campaign.Settings()
        settings.target = "fixture-hang-in-teardown"
        settings.scenario.workers = 2
        settings.scenario.operationsPerWorker = 10
        // Controllers are released only in the teardown.
        settings.scenario.mix[.releaseObserver] = 0
        settings.scenario.mix[.releaseController] = 0
        settings.scenario.actions.releaseController = 0
        settings.operationBudget = 20
        settings.outputDirectory = directory.file("teardown")
        settings.isolation = .childProcesses(children)
        let start = Date()
        let summary = try Campaign(settings: settings).run()
        XCTAssertLessThan(Date().timeIntervalSince(start), BuildSanitizer.timeLimit(15))
        XCTAssertEqual(summary.rounds, 1)
        XCTAssertEqual(summary.roundRecords.first?.signature, "deadlock")
        XCTAssertTrue(
            summary.failures.first?.messages.first?.contains("gave no answer, and reported no progress, for") ?? false, "\(summary.failures)")
        XCTAssertEqual(summary.deadlockedRounds, 1)
        XCTAssertEqual(summary.isolation?.processesLost, 1)
        let seedFile = try SeedFileStore.read(try XCTUnwrap(summary.seedFiles.first))
        XCTAssertEqual(seedFile.failure.signature, "deadlock")
    }

    /// A round that runs longer than the parent's answer timeout but keeps making progress (a correct system that
    /// takes 2 ms per observe) is waited for, whatever the machine's load: the child's heartbeats move the deadline.
    func testALongRoundThatKeepsMovingIsNotKilledAsADeadlock() throws {
        var children = try childProcesses()
        children.stallTimeout = 0.2
        children.answerAllowance = 2
        var settings = Campaign.Settings()
        settings.target = "fixture-slow"
        settings.scenario.workers = 2
        settings.scenario.operationsPerWorker = 2_000
        settings.scenario.mix = try OperationMix(parsing: "observe=1")
        settings.scenario.faults = .none
        settings.operationBudget = 4_000
        settings.outputDirectory = directory.file("slow")
        settings.isolation = .childProcesses(children)
        let start = Date()
        let summary = try Campaign(settings: settings).run()
        let timeout = children.answerTimeout(operations: 4_000)
        XCTAssertGreaterThan(Date().timeIntervalSince(start), timeout, "the round must outlast the answer timeout")
        XCTAssertNil(summary.harnessError)
        XCTAssertEqual(summary.rounds, 1)
        XCTAssertTrue(summary.passed, "\(summary.failures)")
        XCTAssertEqual(summary.isolation?.processesLost, 0)
    }

    func testAnIsolatedReplayOfAControlledFileIsExact() throws {
        let result = ControlledRunner(settings: .init()).runAndEvaluate(
            Scenario(configuration: .controlledDefault, seed: 5), against: RawRuntimeTarget())
        XCTAssertFalse(result.passed)
        let path = try SeedFileStore.write(SeedFile(result: result, toolVersion: ToolVersion.current), into: directory.path)
        let outcome = try Replayer(file: try SeedFileStore.read(path)).replay(runs: 3, isolatedBy: try childProcesses())
        XCTAssertEqual(outcome.violatedRuns, 3)
        XCTAssertEqual(outcome.sameSignatureRuns, 3)
        XCTAssertEqual(outcome.exactRuns, 3, "\(outcome.mismatches)")
        XCTAssertEqual(outcome.crashedRuns, 0)
        XCTAssertEqual(outcome.isolation?.processesStarted, 1, "controlled runs share a process")
    }

    func testAChildThatIsNotARoundServerIsAClearError() throws {
        var settings = Campaign.Settings()
        settings.operationBudget = 10
        settings.outputDirectory = directory.file("none")
        settings.isolation = .childProcesses(ChildProcessSettings(executable: "/bin/echo", arguments: ["hello"]))
        let summary = try Campaign(settings: settings).run()
        XCTAssertEqual(summary.rounds, 0)
        XCTAssertFalse(summary.passed)
        XCTAssertTrue(summary.harnessError?.contains("is not a round server") ?? false, summary.harnessError ?? "")

        settings.isolation = .childProcesses(ChildProcessSettings(executable: directory.file("absent"), arguments: []))
        let missing = try Campaign(settings: settings).run()
        XCTAssertTrue(missing.harnessError?.contains("cannot start") ?? false, missing.harnessError ?? "")
    }

    // MARK: The pieces

    func testWaitStatusesDecodeAndSignalsAreNamed() {
        XCTAssertEqual(ProcessEnd(waitStatus: 0), .exited(0))
        XCTAssertEqual(ProcessEnd(waitStatus: 3 << 8), .exited(3))
        XCTAssertEqual(ProcessEnd(waitStatus: SIGSEGV), .signalled(SIGSEGV))
        XCTAssertEqual(ProcessEnd(waitStatus: SIGSEGV | 0x80), .signalled(SIGSEGV), "a core dump flag does not matter")
        XCTAssertEqual(ProcessEnd.signalled(SIGSEGV).name, "SIGSEGV")
        XCTAssertEqual(ProcessEnd.signalled(SIGABRT).description, "killed by SIGABRT")
        XCTAssertEqual(ProcessEnd.exited(3).name, "exit 3")
        XCTAssertTrue(ProcessEnd.signalled(SIGILL).isTrap)
        XCTAssertTrue(ProcessEnd.signalled(SIGTRAP).isTrap)
        XCTAssertFalse(ProcessEnd.signalled(SIGBUS).isTrap)
        XCTAssertEqual(ProcessEnd.signalName(63), "signal 63")
    }

    func testCrashVerdictsHaveTheirSignaturesAndMessages() {
        let log = "noise\nFaultInjector/X.swift:81: Fatal error: something broke\n\n*** Program crashed: Illegal instruction ***\n"
        let trap = Verdict(processEnd: .signalled(SIGILL), log: log, seconds: 0.25)
        XCTAssertEqual(trap.signature, "trap")
        XCTAssertEqual(trap.violations.first?.message, "the round's process trapped (SIGILL) after 0.3 s: FaultInjector/X.swift:81: Fatal error: something broke")
        XCTAssertEqual(trap.crashSignals, ["SIGILL": 1])

        let segv = Verdict(processEnd: .signalled(SIGSEGV), log: "*** Program crashed: Bad pointer dereference at 0x8 ***", seconds: 1)
        XCTAssertEqual(segv.signature, "crash(SIGSEGV)")
        XCTAssertTrue(segv.violations.first?.message.hasSuffix(": *** Program crashed: Bad pointer dereference at 0x8 ***") ?? false)
        XCTAssertEqual(Verdict(processEnd: .exited(3), log: "", seconds: 1).signature, "crash(exit 3)")

        let hang = Verdict(unresponsiveFor: 40, log: "")
        XCTAssertEqual(hang.signature, "deadlock")
        XCTAssertTrue(hang.abandoned)

        var merged = Verdict()
        merged.merge(segv)
        merged.merge(trap)
        merged.merge(Verdict(processEnd: .signalled(SIGBUS), log: "", seconds: 1))
        XCTAssertEqual(merged.signature, "crash(SIGBUS,SIGSEGV)+trap")
        XCTAssertEqual(merged.crashSignals, ["SIGSEGV": 1, "SIGILL": 1, "SIGBUS": 1])
    }

    func testTheSeedFileOfARoundAboutToRunRegeneratesTheRound() throws {
        let scenario = Scenario(configuration: .controlledDefault, seed: 99)
        let file = SeedFile(
            roundAboutToRun: scenario, target: "guard", runner: .controlled(ControlledRunner.Settings()),
            toolVersion: ToolVersion.current, createdAt: Date(timeIntervalSince1970: 1_800_000_000))
        XCTAssertEqual(file.createdAt, "2027-01-15T08:00:00Z")
        XCTAssertEqual(file.createdAt, ISO8601DateFormatter().string(from: Date(timeIntervalSince1970: 1_800_000_000)))
        XCTAssertEqual(file.failure.signature, SeedFile.unfinishedSignature)
        XCTAssertEqual(file.expectedSteps, ControlledRunner.Settings.estimatedSteps(for: scenario))
        let path = try SeedFileStore.write(file, into: directory.path)
        let read = try SeedFileStore.read(path)
        XCTAssertEqual(try read.makeScenario(), scenario)
        XCTAssertEqual(try read.makeRunnerChoice().controlledSettings?.expectedSteps, file.expectedSteps)
    }
}
