@testable import FaultInjector
import FaultInjectorTestSupport
import Foundation
import GuardCore
import XCTest

/// A failing controlled run written as a seed file replays its failure every time, exactly.
final class ControlledReplayTests: XCTestCase {
    private var directory: TemporaryDirectory!

    override func setUpWithError() throws {
        directory = try TemporaryDirectory("fi-controlled")
    }

    override func tearDown() {
        directory?.remove()
        directory = nil
    }

    /// Writes `result` as a seed file, reads it back, and replays it `runs` times against `target`.
    private func writeAndReplay(_ result: RunResult, target: any SystemUnderTest, runs: Int) throws -> (SeedFile, Replayer.Outcome) {
        let path = try SeedFileStore.write(SeedFile(result: result, toolVersion: ToolVersion.current), into: directory.path)
        let file = try SeedFileStore.read(path, targets: TargetCatalog.names + [target.name])
        let replayer = try Replayer(file: file, target: target)
        XCTAssertTrue(replayer.followsRecordedSchedule)
        return (file, try replayer.replay(runs: runs))
    }

    private func assertReproducedEveryTime(_ outcome: Replayer.Outcome, _ file: SeedFile, runs: Int, _ label: String) {
        XCTAssertEqual(outcome.runs, runs, label)
        XCTAssertEqual(outcome.violatedRuns, runs, "\(label): \(Set(outcome.signatures))")
        XCTAssertEqual(outcome.sameSignatureRuns, runs, "\(label): \(Set(outcome.signatures)) vs \(file.failure.signature)")
        XCTAssertEqual(outcome.exactRuns, runs, "\(label): \(outcome.mismatches.prefix(3))")
        XCTAssertEqual(outcome.mismatches, [], label)
    }

    func testAFailingRawRuntimeSeedFileReproducesOneHundredTimesOutOfOneHundred() throws {
        let scenario = Scenario(configuration: ControlledFixtures.configuration(), seed: 77)
        let original = ControlledRunner(settings: ControlledFixtures.settings(.pct(depth: 3))).runAndEvaluate(scenario, against: RawRuntimeTarget())
        XCTAssertFalse(original.passed)
        let (file, outcome) = try writeAndReplay(original, target: RawRuntimeTarget(), runs: 100)
        XCTAssertEqual(file.runner, "controlled")
        assertReproducedEveryTime(outcome, file, runs: 100, "raw")
    }

    func testAPlantedOrderingBugIsFoundAndItsSeedFileReproducesOneHundredTimesOutOfOneHundred() throws {
        let target = ControlledTargets.RacyDedup()
        let configuration = ControlledFixtures.dedupRaceConfiguration()
        var failing: RunResult?
        var passingSeeds = 0
        for seed: UInt64 in 1...300 {
            let result = ControlledRunner(settings: ControlledFixtures.settings(.random))
                .runAndEvaluate(Scenario(configuration: configuration, seed: seed), against: target)
            if result.passed {
                passingSeeds += 1
            } else {
                failing = result
                break
            }
        }
        let found = try XCTUnwrap(failing, "300 random schedules never hit the check-then-act race")
        XCTAssertGreaterThan(found.verdict.violationCounts[.nonLinearizable, default: 0], 0, found.verdict.signature)
        // The bug needs a particular interleaving: the same operations with no preemption pass.
        let sequential = ControlledRunner(settings: ControlledFixtures.settings(.pct(depth: 1)))
            .runAndEvaluate(found.scenario, against: target)
        XCTAssertTrue(sequential.passed, "without preemption the planted bug must not show: \(sequential.verdict.signature)")

        let (file, outcome) = try writeAndReplay(found, target: target, runs: 100)
        XCTAssertEqual(file.strategy, "random")
        XCTAssertEqual(file.failure.signature, found.verdict.signature)
        assertReproducedEveryTime(outcome, file, runs: 100, "racy dedup after \(passingSeeds) passing seeds")
    }

    func testAControlledSeedFileWithoutItsScheduleRegeneratesTheSameRunFromTheStrategyAndSeed() throws {
        let scenario = Scenario(configuration: ControlledFixtures.configuration(), seed: 78)
        let original = ControlledRunner(settings: ControlledFixtures.settings(.random)).runAndEvaluate(scenario, against: RawRuntimeTarget())
        var file = SeedFile(result: original, toolVersion: ToolVersion.current)
        let digest = file.schedule?.historyDigest
        file.schedule = nil
        let path = try SeedFileStore.write(file, into: directory.path)
        let replayer = try Replayer(file: SeedFileStore.read(path))
        XCTAssertFalse(replayer.followsRecordedSchedule)
        let outcome = try replayer.replay(runs: 3)
        XCTAssertEqual(outcome.lastResult?.history.digest, digest, "the strategy and seed regenerate the same run")
        XCTAssertEqual(outcome.sameSignatureRuns, 3)
        // ... but with nothing recorded to compare, no run is called exact.
        XCTAssertNil(outcome.exactRuns)
        XCTAssertTrue(outcome.exactnessNotChecked?.contains("no recorded schedule") ?? false, "\(String(describing: outcome.exactnessNotChecked))")
    }

    func testReplayingAgainstAnotherTargetUsesTheStrategyInsteadOfTheRecordedSchedule() throws {
        let scenario = Scenario(configuration: ControlledFixtures.configuration(), seed: 79)
        let original = ControlledRunner().runAndEvaluate(scenario, against: RawRuntimeTarget())
        let path = try SeedFileStore.write(SeedFile(result: original, toolVersion: ToolVersion.current), into: directory.path)
        let replayer = try Replayer(file: SeedFileStore.read(path), target: GuardTarget(diagnostics: CountingSink(keepsEvents: false)))
        XCTAssertFalse(replayer.replaysRecordedTarget)
        XCTAssertFalse(replayer.followsRecordedSchedule)
        let outcome = try replayer.replay(runs: 1)
        XCTAssertEqual(outcome.violatedRuns, 0, "the guard passes the raw run's operations: \(outcome.signatures)")
        XCTAssertEqual(outcome.mismatches, [], "no recorded schedule to diverge from")
        XCTAssertNil(outcome.exactRuns, "another target's run is never called exact")
        XCTAssertTrue(outcome.exactnessNotChecked?.contains("is not the file's (raw)") ?? false, "\(String(describing: outcome.exactnessNotChecked))")
    }

    func testADeadlockSeedFileReproducesItsDeadlockEveryTime() throws {
        let target = ControlledTargets.LockLeak()
        let scenario = ControlledFixtures.scenario([["unobserve-all c0", "mutate o0 k0"], ["mutate o0 k1", "unobserve-all c0"]])
        let original = ControlledRunner().runAndEvaluate(scenario, against: target)
        XCTAssertEqual(original.verdict.signature, "deadlock")
        let start = Date()
        let (file, outcome) = try writeAndReplay(original, target: target, runs: 5)
        assertReproducedEveryTime(outcome, file, runs: 5, "lock leak")
        let message = outcome.lastViolation?.violations.first?.message ?? ""
        XCTAssertTrue(message.contains("every unfinished worker is blocked"), "found at once, not by a watchdog: \(message)")
        XCTAssertLessThan(Date().timeIntervalSince(start), BuildSanitizer.timeLimit(5))
    }

    func testTheReplayerCanRecordTheTraceOfTheReplayedRun() throws {
        let scenario = Scenario(configuration: ControlledFixtures.configuration(), seed: 80)
        let original = ControlledRunner().runAndEvaluate(scenario, against: RawRuntimeTarget())
        XCTAssertNil(original.recording.controlled?.trace)
        let path = try SeedFileStore.write(SeedFile(result: original, toolVersion: ToolVersion.current), into: directory.path)
        var replayer = try Replayer(file: SeedFileStore.read(path))
        replayer.recordsTrace = true
        let outcome = try replayer.replay(runs: 1)
        XCTAssertEqual(outcome.exactRuns, 1)
        let trace = try XCTUnwrap(outcome.lastResult?.recording.controlled?.trace)
        XCTAssertGreaterThan(trace.events.count, original.recording.controlled?.steps ?? 0)
    }
}
