@testable import FaultInjector
import FaultInjectorTestSupport
@testable import FaultInjectorTools
import Foundation
import GuardCore
import XCTest

/// Shrinking keeps a race a race: a failure that needs two workers still needs them after shrinking, and a failure
/// that shows with the workers run one after another is called a sequential misuse.
final class ShrinkerRaceTests: XCTestCase {
    /// The first run of `texts` against `target` (random schedules, seeds 1...400) that fails with `signature` (or
    /// with any failure when `nil`), as a seed file.
    private func failingFile(
        _ texts: [[String]], target: any SystemUnderTest, signature: String? = nil
    ) throws -> SeedFile {
        for seed: UInt64 in 1...400 {
            let scenario = ControlledFixtures.scenario(texts, seed: seed)
            let result = ControlledRunner(settings: ControlledFixtures.settings(.random)).runAndEvaluate(scenario, against: target)
            if !result.passed, signature == nil || result.verdict.signature == signature {
                return SeedFile(result: result, toolVersion: ToolVersion.current)
            }
        }
        XCTFail("no schedule of 400 failed with \(signature ?? "any failure")")
        throw CocoaError(.featureUnsupported)
    }

    private func shrink(_ file: SeedFile, _ target: any SystemUnderTest) throws -> ShrinkOutcome {
        var settings = ShrinkSettings()
        settings.verificationRuns = 3
        guard case .shrunk(let outcome) = try Shrinker(file: file, target: target, settings: settings).shrink() else {
            throw CocoaError(.featureUnsupported)
        }
        XCTAssertTrue(outcome.verified, "\(outcome.verification?.signatures ?? [])")
        return outcome
    }

    /// The signature of `scenario` run with its workers one after another, worker `first` first.
    private func serial(_ scenario: Scenario, first: Int, _ target: any SystemUnderTest) -> String {
        var runner = ControlledRunner(settings: ControlledFixtures.settings(.random))
        runner.customStrategy = { _ in GuidedStrategy(plan: CandidateSchedule.serialPlan(first: first)) }
        return runner.runAndEvaluate(scenario, against: target).verdict.signature
    }

    /// Two workers each observe and unobserve the same key path; the facade's check-then-act lets both unobserves
    /// say `removed`. A smaller scenario fails the same way without any concurrency (one unobserve of what was never
    /// observed, which the facade answers `removed`): the shrinker meets it first, and must not keep it.
    func testARaceIsShrunkToARaceNeverToASequentialMisuseWithTheSameSignature() throws {
        let target = ControlledTargets.RacyRemoval()
        let texts = [["observe c0 o0 k0 []", "unobserve c0 o0 k0"], ["observe c0 o0 k0 []", "unobserve c0 o0 k0"]]
        let alone = ControlledFixtures.scenario([["unobserve c0 o0 k0"]])
        let sequentialSignature = ControlledRunner().runAndEvaluate(alone, against: target).verdict.signature
        let file = try failingFile(texts, target: target, signature: sequentialSignature)
        XCTAssertEqual(file.failure.signature, "non-linearizable")

        let outcome = try shrink(file, target)
        XCTAssertEqual(outcome.race, .race(serialOrders: 2))
        XCTAssertEqual(outcome.file.shrunk?.needsConcurrency, true)
        XCTAssertEqual(outcome.shrunk.workers, 2, "still two workers: \(outcome.file.operations ?? [])")
        XCTAssertEqual(outcome.file.failure.signature, "non-linearizable")
        for first in 0..<2 {
            XCTAssertEqual(serial(outcome.scenario, first: first, target), "", "serial order from worker \(first) passes")
        }
        XCTAssertEqual(outcome.file.operations, texts, "each worker keeps its observe before its unobserve")
    }

    /// The two-thread double removal on a wrapper without its lock (bug-lock-missing): both removals find the
    /// registration and both reach the runtime. It stays two workers.
    func testTheTwoThreadDoubleUnobserveOnALockMissingWrapperStaysTwoThreads() throws {
        let target = try XCTUnwrap(TargetCatalog.make("bug-lock-missing", diagnostics: CountingSink(keepsEvents: false)))
        let texts = [["observe c0 o0 k0 [new]", "unobserve c0 o0 k0"], ["unobserve c0 o0 k0"]]
        var file = try failingFile(texts, target: target, signature: "non-linearizable+runtime-misuse(notRegistered)")
        file.description = "two threads remove the same registration"
        let outcome = try shrink(file, target)
        XCTAssertEqual(outcome.file.description, file.description, "the shrunk file shows what the original showed")
        // One after the other the second removal answers notRegistered for alreadyRemoved (the unlocked unobserve
        // keeps no record), a lesser failure; both removals reaching the runtime needs them to overlap.
        XCTAssertEqual(outcome.race, .race(serialOrders: 2, otherFailures: ["non-linearizable"]))
        XCTAssertEqual(outcome.shrunk.workers, 2)
        XCTAssertEqual(outcome.shrunk.operations, 3)
        XCTAssertEqual(outcome.file.operations, [["observe c0 o0 k0 []", "unobserve c0 o0 k0"], ["unobserve c0 o0 k0"]])
        XCTAssertEqual(
            outcome.race.summary,
            "a race: this failure needs the workers to overlap (run one after another, in both orders, they fail only "
                + "with non-linearizable); the shrunk file keeps it a race")
    }

    /// On the raw runtime the same two-thread double removal fails however the threads interleave: a second removal
    /// is always one too many. The shrinker says so and reduces it to one removal on one worker.
    func testTheTwoThreadDoubleUnobserveOnTheRawRuntimeIsASequentialMisuse() throws {
        let target = RawRuntimeTarget()
        let texts = [["observe c0 o0 k0 [new]", "unobserve c0 o0 k0"], ["unobserve c0 o0 k0"]]
        let file = try failingFile(texts, target: target)
        XCTAssertEqual(file.failure.signature, "runtime-misuse(notRegistered)")
        let outcome = try shrink(file, target)
        guard case .sequential = outcome.race else { return XCTFail("\(outcome.race)") }
        XCTAssertEqual(outcome.file.shrunk?.needsConcurrency, false)
        XCTAssertTrue(outcome.race.summary.hasPrefix("not a race: a sequential misuse"), outcome.race.summary)
        XCTAssertEqual(outcome.shrunk.workers, 1)
        XCTAssertEqual(outcome.file.operations, [["unobserve c0 o0 k0"]])
    }
}
