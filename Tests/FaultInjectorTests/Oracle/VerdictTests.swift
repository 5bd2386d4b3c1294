@testable import FaultInjector
import FaultInjectorTestSupport
import Foundation
import GuardCore
import XCTest

/// ``Verdict``, the one outcome of a run: the oracle's findings with the run's numbers, the same whether it comes
/// from the oracle, from a child process's answer or from a campaign's merge.
final class VerdictTests: XCTestCase {
    func testTheVerdictOnAChaosRunCarriesTheRunsNumbers() {
        let result = RunFixtures.rawFailure
        let verdict = result.verdict
        XCTAssertFalse(verdict.passed)
        XCTAssertEqual(verdict.operations, result.recording.operationsPerformed)
        XCTAssertEqual(verdict.deliveries, result.recording.deliveries)
        XCTAssertEqual(verdict.faultsInjected, result.recording.faultsInjected)
        XCTAssertEqual(verdict.seconds, result.recording.seconds)
        XCTAssertEqual(verdict.abandoned, result.recording.abandoned)
        XCTAssertEqual(verdict.steps, 0, "the chaos runner takes no schedule steps")
        XCTAssertNil(verdict.choiceSteps)
        XCTAssertGreaterThan(verdict.operations, 0)
    }

    func testTheVerdictOnAControlledRunCarriesItsSteps() throws {
        let result = RunFixtures.controlledRawFailure
        let controlled = try XCTUnwrap(result.recording.controlled)
        XCTAssertEqual(result.verdict.steps, controlled.steps)
        XCTAssertEqual(result.verdict.choiceSteps, controlled.choiceSteps)
        XCTAssertEqual(result.verdict.hitStepLimit, result.recording.facts.stepLimitExceeded != nil)
        XCTAssertGreaterThan(result.verdict.steps, 0)
    }

    func testAHistoryAloneIsJudgedTheSameWithoutNumbers() {
        let recording = RunFixtures.rawFailure.recording
        let alone = Oracle(for: recording).evaluate(recording.history, facts: recording.facts)
        XCTAssertEqual(alone.signature, RunFixtures.rawFailure.verdict.signature)
        XCTAssertEqual(alone.checks, RunFixtures.rawFailure.verdict.checks)
        XCTAssertEqual(alone.operations, 0)
        XCTAssertEqual(alone.seconds, 0)
    }

    /// A child process answers with its verdict as JSON: every field comes back.
    func testAVerdictSurvivesJSONInTheRoundServersAnswer() throws {
        var verdict = RunFixtures.controlledRawFailure.verdict
        verdict.preventedMisuses = [.doubleRemoval: 2]
        let line = try JSONEncoder().encode(RoundAnswer(verdict: verdict, mismatch: "diverged at step 3"))
        let answer = try JSONDecoder().decode(RoundAnswer.self, from: line)
        let decoded = try XCTUnwrap(answer.verdict)
        XCTAssertEqual(answer.mismatch, "diverged at step 3")
        XCTAssertEqual(decoded.signature, verdict.signature)
        XCTAssertEqual(decoded.checks, verdict.checks)
        XCTAssertEqual(decoded.violations, verdict.violations)
        XCTAssertEqual(decoded.violationCounts, verdict.violationCounts)
        XCTAssertEqual(decoded.runtimeMisuses, verdict.runtimeMisuses)
        XCTAssertEqual(decoded.operations, verdict.operations)
        XCTAssertEqual(decoded.deliveries, verdict.deliveries)
        XCTAssertEqual(decoded.steps, verdict.steps)
        XCTAssertEqual(decoded.choiceSteps, verdict.choiceSteps)
        XCTAssertEqual(decoded.seconds, verdict.seconds)
        XCTAssertEqual(decoded.preventedMisuses, [.doubleRemoval: 2])
    }

    func testMergingAddsFindingsAndNumbers() {
        var first = Verdict(processEnd: .signalled(SIGSEGV), log: "", seconds: 1.5)
        first.operations = 10
        first.steps = 4
        first.choiceSteps = 3
        first.preventedMisuses = [.doubleRemoval: 1]
        var second = Verdict(unresponsiveFor: 2, log: "")
        second.operations = 5
        second.choiceSteps = 7
        second.hitStepLimit = true
        second.preventedMisuses = [.doubleRemoval: 2]
        var merged = Verdict()
        merged.merge(first)
        merged.merge(second)
        XCTAssertEqual(merged.signature, "crash(SIGSEGV)+deadlock")
        XCTAssertEqual(merged.checks[Verdict.survivalCheck], 2)
        XCTAssertEqual(merged.totalViolations, 2)
        XCTAssertEqual(merged.operations, 15)
        XCTAssertEqual(merged.steps, 4)
        XCTAssertEqual(merged.choiceSteps, 7, "the larger")
        XCTAssertEqual(merged.seconds, 3.5)
        XCTAssertTrue(merged.abandoned)
        XCTAssertTrue(merged.hitStepLimit)
        XCTAssertEqual(merged.preventedMisuses, [.doubleRemoval: 3])
    }

    /// A campaign's verdict is its rounds' verdicts merged, so its numbers are the summary's.
    func testACampaignsVerdictAddsUpItsRounds() throws {
        let directory = try TemporaryDirectory("fi-verdict")
        defer { directory.remove() }
        var settings = Campaign.Settings()
        settings.target = "raw"
        settings.runner = .controlled(ControlledRunner.Settings())
        settings.scenario = .controlledDefault
        settings.operationBudget = 600
        settings.outputDirectory = directory.path
        settings.isolation = .inProcess
        let summary = try Campaign(settings: settings).run()
        XCTAssertGreaterThan(summary.rounds, 1)
        XCTAssertFalse(summary.verdict.passed, "the raw runtime fails")
        XCTAssertEqual(summary.verdict.operations, summary.operations)
        XCTAssertEqual(summary.verdict.deliveries, summary.deliveries)
        XCTAssertEqual(summary.verdict.steps, summary.steps)
        XCTAssertEqual(summary.verdict.seconds, summary.workerSeconds, accuracy: 1e-9)
        XCTAssertEqual(summary.verdict.checks["no deadlock"], summary.rounds)
    }
}
