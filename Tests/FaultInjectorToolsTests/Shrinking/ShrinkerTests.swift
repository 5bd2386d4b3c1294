@testable import FaultInjector
import FaultInjectorTestSupport
@testable import FaultInjectorTools
import Foundation
import GuardCore
import XCTest

/// Shrinking failing seed files: smaller files with the same signature that replay exactly (controlled) or
/// reproduce (chaos).
final class ShrinkerTests: XCTestCase {
    private var directory: TemporaryDirectory!

    override func setUpWithError() throws {
        directory = try TemporaryDirectory("fi-shrink")
    }

    override func tearDown() {
        directory?.remove()
        directory = nil
    }

    /// Writes `result` as a seed file and reads it back (targets of the tests' own included).
    private func seedFile(_ result: RunResult, extraTargets: [String] = []) throws -> (SeedFile, String) {
        let path = try SeedFileStore.write(SeedFile(result: result, toolVersion: ToolVersion.current), into: directory.path)
        return (try SeedFileStore.read(path, targets: TargetCatalog.names + extraTargets), path)
    }

    /// Writes a shrunk file, reads it back and replays it `runs` times against `target`.
    private func replayWritten(_ file: SeedFile, target: any SystemUnderTest, runs: Int) throws -> Replayer.Outcome {
        let written = try SeedFileStore.write(file, into: directory.file("shrunk"))
        let read = try SeedFileStore.read(written, targets: TargetCatalog.names + [target.name])
        XCTAssertEqual(read, file, "the shrunk file survives writing and reading")
        return try Replayer(file: read, target: target).replay(runs: runs)
    }

    private func shrunk(_ result: ShrinkResult, file: StaticString = #filePath, line: UInt = #line) throws -> ShrinkOutcome {
        guard case .shrunk(let outcome) = result else {
            XCTFail("expected the failure to reproduce and shrink: \(result)", file: file, line: line)
            throw CocoaError(.featureUnsupported)
        }
        return outcome
    }

    private func assertExact(_ outcome: Replayer.Outcome, runs: Int, signature: String, _ label: String) {
        XCTAssertEqual(outcome.runs, runs, label)
        XCTAssertEqual(outcome.sameSignatureRuns, runs, "\(label): \(Set(outcome.signatures)) vs \(signature)")
        XCTAssertEqual(outcome.exactRuns, runs, "\(label): \(outcome.mismatches.prefix(3))")
    }

    // MARK: Controlled files

    func testAFailingRawRuntimeControlledFileShrinksToASmallerOneThatReplaysExactlyOneHundredTimes() throws {
        let scenario = Scenario(configuration: ControlledFixtures.configuration(), seed: 77)
        let original = ControlledRunner(settings: ControlledFixtures.settings(.pct(depth: 3)))
            .runAndEvaluate(scenario, against: RawRuntimeTarget())
        XCTAssertFalse(original.passed)
        let (file, path) = try seedFile(original)
        var settings = ShrinkSettings()
        settings.verificationRuns = 3
        var notes: [String] = []
        let outcome = try shrunk(
            Shrinker(file: file, fileName: (path as NSString).lastPathComponent, settings: settings).shrink { notes.append($0.note) })

        XCTAssertEqual(outcome.file.failure.signature, file.failure.signature)
        XCTAssertEqual(outcome.original.operations, 100)
        XCTAssertLessThan(outcome.shrunk.operations, 10, "\(outcome.shrunk)")
        XCTAssertLessThanOrEqual(outcome.shrunk.workers, outcome.original.workers)
        XCTAssertLessThan(outcome.shrunk.steps ?? .max, outcome.original.steps ?? 0)
        XCTAssertLessThanOrEqual(outcome.shrunk.controllers, outcome.original.controllers)
        XCTAssertNil(outcome.budgetExhausted)
        XCTAssertTrue(outcome.verified)
        XCTAssertFalse(notes.isEmpty, "progress is reported")
        XCTAssertEqual(outcome.file.shrunk?.originalOperations, 100)
        XCTAssertEqual(outcome.file.shrunk?.from, (path as NSString).lastPathComponent)
        XCTAssertNotNil(outcome.file.schedule, "a shrunk controlled file records its schedule")

        let replay = try replayWritten(outcome.file, target: RawRuntimeTarget(), runs: 100)
        assertExact(replay, runs: 100, signature: file.failure.signature, "shrunk raw file")
    }

    func testThePlantedCheckThenActDedupRaceShrinksAndStillReplaysExactlyOneHundredTimes() throws {
        let target = ControlledTargets.RacyDedup()
        let configuration = ControlledFixtures.dedupRaceConfiguration()
        var failing: RunResult?
        for seed: UInt64 in 1...300 {
            let result = ControlledRunner(settings: ControlledFixtures.settings(.random))
                .runAndEvaluate(Scenario(configuration: configuration, seed: seed), against: target)
            if !result.passed {
                failing = result
                break
            }
        }
        let found = try XCTUnwrap(failing, "300 random schedules never hit the check-then-act race")
        let (file, _) = try seedFile(found, extraTargets: [target.name])
        var settings = ShrinkSettings()
        settings.verificationRuns = 0
        let outcome = try shrunk(Shrinker(file: file, fileName: "racy", target: target, settings: settings).shrink())

        XCTAssertEqual(outcome.file.failure.signature, found.verdict.signature)
        XCTAssertLessThan(outcome.shrunk.operations, outcome.original.operations, "\(outcome.original) → \(outcome.shrunk)")
        XCTAssertEqual(outcome.shrunk.workers, 2, "a race needs two workers: \(outcome.file.operations ?? [])")
        XCTAssertGreaterThan(outcome.shrunk.preemptions ?? 0, 0, "the race needs a preemption")
        XCTAssertLessThanOrEqual(outcome.shrunk.preemptions ?? .max, outcome.original.preemptions ?? 0)
        // Without preemption the same operations pass: the schedule, not the operations alone, fails.
        let sequential = ControlledRunner(settings: ControlledFixtures.settings(.pct(depth: 1)))
            .runAndEvaluate(outcome.scenario, against: target)
        XCTAssertTrue(sequential.passed, sequential.verdict.signature)

        let replay = try replayWritten(outcome.file, target: target, runs: 100)
        assertExact(replay, runs: 100, signature: found.verdict.signature, "shrunk racy dedup file")

        // The story shows both workers, the preemption inside an observe, and the result that cannot be explained.
        let story = try Explainer(file: outcome.file, fileName: "racy-dedup.shrunk.json", target: target).explain()
        let text = StoryText(story: story).text
        XCTAssertTrue(text.contains("⇥ preempted "), text)
        // Which violation the story numbers first depends on the schedule the shrinker kept (a missing delivery to
        // the second "registered" observe may come first); the non-linearizable result must be among them.
        XCTAssertNotNil(text.range(of: #"◄ ✗[0-9]+ non-linearizable"#, options: .regularExpression), text)
        XCTAssertEqual(Set(story.lines.filter { $0.worker >= 0 }.map(\.worker)), [0, 1], text)
        let pinned = story.lines[story.violations[0].line]
        XCTAssertTrue(pinned.kind == .ended || pinned.kind == .completed, "pinned to a result: \(pinned)")
        print("---- racy dedup, shrunk (\(outcome.original) → \(outcome.shrunk)) ----")
        print(text)
    }

    func testAFileWhoseFailureDoesNotReproduceIsReportedAsSuch() throws {
        let scenario = Scenario(configuration: ControlledFixtures.configuration(), seed: 78)
        let passing = ControlledRunner().runAndEvaluate(scenario, against: GuardTarget(diagnostics: CountingSink(keepsEvents: false)))
        XCTAssertTrue(passing.passed)
        var file = SeedFile(result: passing, toolVersion: ToolVersion.current)
        file.failure.signature = "missing-delivery"
        let result = try Shrinker(file: file).shrink()
        guard case .notReproduced(let why) = result else { return XCTFail("expected no reproduction") }
        XCTAssertEqual(why.expected, "missing-delivery")
        XCTAssertTrue(why.description.contains("did not reproduce"), why.description)
        XCTAssertTrue(why.description.contains("the oracle held every time"), why.description)
    }

    func testAFileWithoutAFailureCannotBeShrunk() throws {
        let scenario = Scenario(configuration: ControlledFixtures.configuration(), seed: 79)
        let passing = ControlledRunner().runAndEvaluate(scenario, against: GuardTarget(diagnostics: CountingSink(keepsEvents: false)))
        let file = SeedFile(result: passing, toolVersion: ToolVersion.current)
        XCTAssertThrowsError(try Shrinker(file: file)) { error in
            XCTAssertTrue("\(error)".contains("records no failure"), "\(error)")
        }
    }

    func testTheCandidateBudgetStopsTheSearchAndKeepsTheSmallestFailureFoundSoFar() throws {
        let scenario = Scenario(configuration: ControlledFixtures.configuration(), seed: 77)
        let original = ControlledRunner().runAndEvaluate(scenario, against: RawRuntimeTarget())
        let (file, _) = try seedFile(original)
        var settings = ShrinkSettings()
        settings.maximumCandidates = 3
        settings.verificationRuns = 2
        let outcome = try shrunk(Shrinker(file: file, settings: settings).shrink())
        XCTAssertEqual(outcome.candidates, 3)
        XCTAssertNotNil(outcome.budgetExhausted)
        XCTAssertTrue(outcome.budgetExhausted?.contains("candidate budget") ?? false)
        XCTAssertEqual(outcome.file.failure.signature, file.failure.signature)
        XCTAssertTrue(outcome.verified)
    }

    /// ``ControlledTargets/LockLeak`` with every controller lock kept alive for good: shrinking tries candidates that
    /// take the lock and then finish, and a lock destroyed while held stops the process.
    private struct KeptLockLeak: SystemUnderTest {
        let name = "lock-leak"
        let promisesGuardSemantics = true
        private static let kept = Protected([Lock]())

        func makeController(
            for observer: StressObserver, retainsObjects: Bool, diagnostics: any DiagnosticSink
        ) -> any StressController {
            let lock = Lock()
            Self.kept.withValue { $0.append(lock) }
            return ControlledTargets.LockLeak.Controller(
                inner: GuardTarget(diagnostics: CountingSink(keepsEvents: false))
                    .makeController(for: observer, retainsObjects: retainsObjects, diagnostics: diagnostics),
                lock: lock)
        }
    }

    func testADeadlockShrinksToTheCallsThatBlockAndIsToldWhereItStopped() throws {
        let target = KeptLockLeak()
        let scenario = ControlledFixtures.scenario(
            [["mutate o0 k2", "unobserve-all c0", "mutate o0 k0"], ["observe c0 o0 k1 [new]", "mutate o0 k1", "unobserve-all c0"]])
        let original = ControlledRunner().runAndEvaluate(scenario, against: target)
        XCTAssertEqual(original.verdict.signature, "deadlock")
        let (file, _) = try seedFile(original, extraTargets: [target.name])
        var settings = ShrinkSettings()
        settings.verificationRuns = 3
        let outcome = try shrunk(Shrinker(file: file, target: target, settings: settings).shrink())
        XCTAssertEqual(outcome.file.failure.signature, "deadlock")
        XCTAssertEqual((outcome.file.operations ?? []).flatMap { $0 }, ["unobserve-all c0", "unobserve-all c0"], "the leaked lock, taken twice")
        XCTAssertTrue(outcome.verified)

        let story = try Explainer(file: outcome.file, fileName: "lock-leak.shrunk.json", target: target).explain()
        let text = StoryText(story: story).text
        XCTAssertTrue(text.contains("the run was abandoned"), text)
        let pinned = story.lines[story.violations[0].line]
        XCTAssertNotEqual(pinned.kind, .end, "a deadlock is pinned where the run stopped: \(text)")
        XCTAssertTrue(text.contains("◄ ✗1 deadlock"), text)
    }

    // MARK: Chaos files

    func testAChaosFileWithADeterministicFailureShrinksToTheRemovalOfTheUnregistered() throws {
        var configuration = ScenarioConfiguration()
        configuration.workers = 3
        configuration.operationsPerWorker = 4
        configuration.objects = 2
        configuration.controllers = 2
        configuration.weakHoldingEvery = 0
        let texts = [
            ["observe c0 o0 k0 [new]", "mutate o0 k0", "unobserve c0 o0 k0", "mutate o1 k2"],
            ["observe c1 o1 k1 [old]", "mutate o1 k1", "unobserve c1 o0 k2", "unobserve c1 o1 k1"],
            ["mutate o0 k1", "mutate o1 k0", "observe c0 o1 sum [new,old]", "unobserve c0 o1 sum"],
        ]
        let scenario = Scenario(configuration: configuration, seed: 9, operations: texts.map { $0.map { Operation($0)! } })
        let original = ChaosRunner().runAndEvaluate(scenario, against: RawRuntimeTarget())
        XCTAssertEqual(original.verdict.signature, "runtime-misuse(notRegistered)", "only c1 o0 k2 was never registered")
        let (file, _) = try seedFile(original)
        var settings = ShrinkSettings()
        settings.runsPerCandidate = 3
        settings.verificationRuns = 10
        let outcome = try shrunk(Shrinker(file: file, settings: settings).shrink())

        XCTAssertEqual(outcome.file.runner, "chaos")
        XCTAssertEqual(outcome.file.failure.signature, "runtime-misuse(notRegistered)")
        XCTAssertEqual(outcome.shrunk.workers, 1)
        XCTAssertEqual(outcome.shrunk.operations, 1)
        let only = try XCTUnwrap(outcome.file.operations?.first?.first)
        XCTAssertEqual(only, "unobserve c0 o0 k0", "one removal of something never registered, slots and key renamed from 0")
        XCTAssertEqual(outcome.file.scenario.controllers, 1)
        XCTAssertEqual(outcome.file.scenario.objects, 1)
        XCTAssertEqual(outcome.file.shrunk?.runsPerCandidate, 3)
        XCTAssertNil(outcome.file.schedule)
        XCTAssertEqual(outcome.verification?.sameSignatureRuns, 10)

        let replay = try replayWritten(outcome.file, target: RawRuntimeTarget(), runs: 10)
        XCTAssertEqual(replay.sameSignatureRuns, 10)
    }

    // MARK: Must show: the `.initial` + unobserve-in-callback race on its planted bug

    func testTheInitialUnobserveRaceOnItsPlantedBugShrinksToAStoryThatFitsAScreen() throws {
        let target = PlantedBugTarget(.initialStateMissing)
        // The planted bug is a raw-runtime wrapper: it runs on the classic scenario (the stored keys and `sum`, the ten
        // classic operations), where nothing but its `.initial` handling can go wrong.
        var classic = ControlledFixtures.configuration()
        classic.keys = StressKey.classic
        classic.mix = .classic
        classic.actions.adopt = 0
        // First: the planted bug is only the `.initial` handling. Without `.initial` handler actions it passes.
        var quiet = classic
        quiet.mix[.observeInitial] = 0
        for seed: UInt64 in 1...5 {
            let result = ControlledRunner().runAndEvaluate(Scenario(configuration: quiet, seed: seed), against: target)
            XCTAssertTrue(result.passed, "seed \(seed) without .initial: \(result.verdict.violations.prefix(3))")
        }
        // A campaign-shaped controlled run (4 workers × 25 operations, PCT depth 3) that hits the bug.
        var failing: RunResult?
        for seed: UInt64 in 1...50 {
            let result = ControlledRunner().runAndEvaluate(
                Scenario(configuration: classic, seed: seed), against: target)
            if result.verdict.runtimeMisuses[.notRegistered, default: 0] > 0 {
                failing = result
                break
            }
        }
        let found = try XCTUnwrap(failing, "50 seeds never hit the planted .initial bug")
        let (file, path) = try seedFile(found, extraTargets: [target.name])
        var settings = ShrinkSettings()
        settings.verificationRuns = 0
        let outcome = try shrunk(
            Shrinker(file: file, fileName: (path as NSString).lastPathComponent, target: target, settings: settings).shrink())

        XCTAssertEqual(outcome.file.failure.signature, found.verdict.signature)
        XCTAssertLessThanOrEqual(outcome.shrunk.workers, 3, "\(outcome.shrunk)")
        XCTAssertLessThanOrEqual(outcome.shrunk.operations, 10, "\(outcome.shrunk)")
        let texts = (outcome.file.operations ?? []).flatMap { $0 }
        XCTAssertTrue(
            texts.contains { $0.contains("initial") && $0.contains(" then ") },
            "the shrunk file keeps the .initial observe with its handler action: \(texts)")
        // The guard passes the same operations.
        let guarded = ControlledRunner().runAndEvaluate(
            outcome.scenario, against: GuardTarget(diagnostics: CountingSink(keepsEvents: false)))
        XCTAssertTrue(guarded.passed, guarded.verdict.signature)

        let written = try SeedFileStore.write(outcome.file, into: directory.file("shrunk"))
        let read = try SeedFileStore.read(written, targets: TargetCatalog.names + [target.name])
        assertExact(try Replayer(file: read, target: target).replay(runs: 100), runs: 100, signature: file.failure.signature, "shrunk .initial file")
        let story = try Explainer(file: read, fileName: "02-initial-then-unobserve-inside-callback.json", target: target).explain()
        let text = StoryText(story: story)
        XCTAssertLessThanOrEqual(text.lines.count, 40, "a story that fits a screen:\n\(text.text)")
        XCTAssertTrue(text.text.contains("initial notification"), text.text)
        XCTAssertTrue(text.text.contains("✗ misuse notRegistered"), text.text)
        XCTAssertTrue(text.text.contains("◄ ✗"), text.text)
        print("---- shrunk seed file (\(outcome.original) → \(outcome.shrunk), \(outcome.candidates) candidates) ----")
        print(String(decoding: try Data(contentsOf: URL(fileURLWithPath: written)), as: UTF8.self))
        print("---- guard-stress explain ----")
        print(text.text)
        if let keep = ProcessInfo.processInfo.environment["KVOGUARD_KEEP_SHRUNK"] {
            try Data(contentsOf: URL(fileURLWithPath: written)).write(to: URL(fileURLWithPath: keep))
        }
    }
}
