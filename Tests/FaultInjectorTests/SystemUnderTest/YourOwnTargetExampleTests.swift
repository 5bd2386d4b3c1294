import FaultInjector
import FaultInjectorTestSupport
import Foundation
import GuardCore
import XCTest

// MARK: The example of FaultInjector.docc/YourOwnSystemUnderTest.md, verbatim (a test below checks it still is).

/// The harness's view of the wrapper.
struct CountingFacadeTarget: SystemUnderTest {
    let name = "counting-facade"
    let promisesGuardSemantics = true

    func makeController(
        for observer: StressObserver, retainsObjects: Bool, diagnostics: any DiagnosticSink
    ) -> any StressController {
        CountingFacade(observer: observer, retainsObjects: retainsObjects)
    }
}

/// The wrapper: the guard, plus a count of its calls kept under its own lock.
final class CountingFacade: StressController, @unchecked Sendable {
    private let lock = ScheduledLock(name: "CountingFacade.calls")  // not NSLock: the scheduler must see it
    private var calls = 0
    private let controller: ObservationController<StressObserver>

    init(observer: StressObserver, retainsObjects: Bool) {
        controller = ObservationController(observer: observer, retainsObservedObjects: retainsObjects)
    }

    func observe(
        _ object: StressObject, keyPath: String, options: KeyValueObservingOptions, sink: DeliverySink, call: StressCall
    ) -> ObserveOutcome {
        lock.withLock { calls += 1 }
        return ObserveOutcome(controller.observe(object, keyPath: keyPath, options: options) { observer, object, change in
            sink.deliver(observer: observer, object: object, change: change)
        })
    }

    func unobserve(_ object: StressObject, keyPath: String, call: StressCall) -> UnobserveOutcome {
        lock.withLock { calls += 1 }
        return UnobserveOutcome(controller.unobserve(object, keyPath: keyPath))
    }

    func unobserve(_ object: StressObject, call: StressCall) -> UnobserveOutcome {
        UnobserveOutcome(controller.unobserve(object))
    }

    func unobserveAll(call: StressCall) -> Int? { controller.unobserveAll() }
}

/// One factory for the campaign (rounds in this process) and for a child program (rounds there).
let myTargets: TargetFactory = { name, _ in name == "counting-facade" ? CountingFacadeTarget() : nil }

/// A controlled campaign against the wrapper; failing rounds write seed files into `directory`.
func checkCountingFacade(seed: UInt64, seconds: Double, into directory: String) throws -> CampaignSummary {
    var settings = Campaign.Settings()
    settings.target = "counting-facade"
    settings.makeTarget = myTargets
    settings.runner = .controlled(ControlledRunner.Settings())
    settings.scenario = ScenarioProfile.mixed.configuration(controlled: true)
    settings.seed = seed
    settings.duration = seconds
    settings.outputDirectory = directory
    // Rounds run in this process unless this program registered a round server (RoundIsolation.automatic). For rounds
    // in child processes: a program of yours that calls `RoundServer.serve(makeTarget: myTargets)`.
    // settings.isolation = .childProcesses(ChildProcessSettings(executable: "/path/to/it", arguments: ["serve"]))
    return try Campaign(settings: settings).run()
}

// MARK: Tests

/// A system under test of your own goes through `Campaign` (and the runners, the replayer) by a factory of yours; an
/// unknown name is a thrown error, never a trap; `guard-stress` says it runs only the built-in targets.
///
/// Public API only (no `@testable`): this is what a platform team outside the package can write.
final class YourOwnTargetExampleTests: XCTestCase {
    private var directory: TemporaryDirectory!

    override func setUpWithError() throws {
        directory = try TemporaryDirectory("fi-own-target")
    }

    override func tearDown() {
        directory?.remove()
        directory = nil
    }

    private static let packageRoot = PackageRoot.url

    func testTheDocumentedExampleIsTheCodeThisFileCompiles() throws {
        let article = try String(
            contentsOf: Self.packageRoot.appendingPathComponent(
                "Sources/FaultInjector/FaultInjector.docc/YourOwnSystemUnderTest.md"), encoding: .utf8)
        let source = try String(contentsOf: URL(fileURLWithPath: #filePath), encoding: .utf8)
        let start = try XCTUnwrap(article.range(of: "```swift\n"), "the article has no Swift example")
        let end = try XCTUnwrap(article.range(of: "```\n", range: start.upperBound..<article.endIndex))
        let example = String(article[start.upperBound..<end.lowerBound])
        XCTAssertGreaterThan(example.count, 500)
        XCTAssertTrue(source.contains(example), "the article's example differs from the code at the top of this file")
    }

    func testTheExampleCampaignRunsTheWrapperOfYourOwnAndTheOracleHolds() throws {
        let summary = try checkCountingFacade(seed: 7, seconds: 0.5, into: directory.file("seeds"))
        XCTAssertEqual(summary.target, "counting-facade")
        XCTAssertGreaterThan(summary.rounds, 0)
        XCTAssertGreaterThan(summary.operations, 0)
        XCTAssertNil(summary.harnessError)
        XCTAssertTrue(summary.passed, "\(summary.failures.map(\.messages))")
        XCTAssertGreaterThan(summary.verdict.checks["observe/unobserve results linearizable", default: 0], 0)
    }

    func testANameTheFactoryDoesNotMakeIsAThrownErrorNotATrap() {
        var settings = Campaign.Settings()
        settings.target = "probe-none"
        settings.isolation = .childProcesses(ChildProcessSettings(executable: "/nonexistent", arguments: ["serve"]))
        XCTAssertThrowsError(try Campaign(settings: settings)) { error in
            let message = "\(error)"
            XCTAssertTrue(message.contains("\"probe-none\""), message)
            XCTAssertTrue(message.contains("Campaign.Settings.makeTarget"), message)
            XCTAssertTrue(message.contains("RoundServer.serve(makeTarget:)"), message)
        }
        // A factory of your own knows only its own names.
        settings.target = "guard"
        settings.makeTarget = myTargets
        XCTAssertThrowsError(try Campaign(settings: settings))
        settings.target = "counting-facade"
        XCTAssertNoThrow(try Campaign(settings: settings))
    }

    func testABrokenWrapperOfYourOwnFailsItsCampaignAndItsSeedFileReplaysAgainstIt() throws {
        var settings = Campaign.Settings()
        settings.target = "forgetful"
        settings.makeTarget = { name, _ in name == "forgetful" ? CustomTargetTests.ForgetfulTarget() : nil }
        settings.runner = .controlled(ControlledRunner.Settings())
        settings.scenario = ScenarioProfile.mixed.configuration(controlled: true)
        settings.seed = 5
        settings.duration = 30
        settings.stopAtFirstFailure = true
        settings.outputDirectory = directory.file("seeds")
        let summary = try Campaign(settings: settings).run()
        let failure = try XCTUnwrap(summary.failures.first, "a wrapper that forgets to remove should fail")
        let path = try XCTUnwrap(failure.seedFile)
        let file = try SeedFileStore.read(path, targets: ["forgetful"])
        XCTAssertEqual(file.target, "forgetful")
        let outcome = try Replayer(file: file, target: CustomTargetTests.ForgetfulTarget()).replay(runs: 1)
        XCTAssertTrue(outcome.reproduced)
        XCTAssertEqual(outcome.exactRuns, 1, "a controlled seed file replays exactly")
    }

    func testChildProcessesThatDoNotServeYourTargetAreAClearErrorNotATrap() throws {
        var settings = Campaign.Settings()
        settings.target = "counting-facade"
        settings.makeTarget = myTargets
        settings.runner = .controlled(ControlledRunner.Settings())
        settings.scenario = ScenarioProfile.mixed.configuration(controlled: true)
        settings.operationBudget = 100
        settings.outputDirectory = directory.file("seeds")
        // guard-stress serves only the built-in targets.
        settings.isolation = .childProcesses(
            ChildProcessSettings(executable: try GuardStressProcess.executable().path, arguments: ["__serve-rounds"]))
        let summary = try Campaign(settings: settings).run()
        let error = try XCTUnwrap(summary.harnessError)
        XCTAssertTrue(error.contains("does not know target \"counting-facade\""), error)
        XCTAssertTrue(error.contains("RoundServer.serve(makeTarget:)"), error)
        XCTAssertFalse(summary.passed)
    }

    func testGuardStressSaysItRunsOnlyTheBuiltInTargets() throws {
        let outcome = try GuardStressProcess.run(
            ["run", "--target", "probe-none", "--ops", "10", "--out", directory.file("out")], in: directory)
        GuardStressProcess.assertUsageError(outcome, mentioning: "not 'probe-none'")
        XCTAssertTrue(outcome.stderr.contains("runs only these built-in targets"), outcome.stderr)
        XCTAssertTrue(outcome.stderr.contains("FaultInjector library"), outcome.stderr)
    }
}
