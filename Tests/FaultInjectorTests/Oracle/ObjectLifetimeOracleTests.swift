@testable import FaultInjector
import FaultInjectorTestSupport
import GuardCore
import XCTest

/// The oracle on the lifetimes of observed objects: a weakly held registration surely ends once its object finished
/// deinitializing (so a count that still includes it is caught), and a released object that nothing could still hold
/// must be gone while its controllers live.
final class ObjectLifetimeOracleTests: XCTestCase {
    private let guardOracle = Oracle(checksGuardSemantics: true, endsWeakRegistrationsAtObjectDeinit: true)
    private let rawOracle = Oracle(checksGuardSemantics: false)

    private func messages(_ report: Verdict) -> String {
        report.violations.map(\.message).joined(separator: " | ")
    }

    // MARK: Counts after a weakly held object deinitialized

    /// A weak controller observes object 300 (10–20); the object is released (30–40) and its deinit ran inside that
    /// release; `registrationCount` is asked at `countAt` and answers `answer`.
    private func weakCount(answer: Int, countAt call: UInt64, deinitRecorded: Bool = true, weak: Bool = true) -> History {
        var builder = HistoryBuilder()
        if weak { builder.history.weakControllers.insert(HistoryBuilder.controller) }
        builder.observe(.k0, at: 10, returning: 20)
        builder.takeOutOfSlot(at: 30, returning: 40)
        if deinitRecorded { builder.history.objectDeinitTimes[HistoryBuilder.object] = 40 }
        builder.query(.countRegistrations, answer: answer, at: call, returning: call + 1)
        return builder.history
    }

    func testACountThatStillIncludesAWeaklyHeldObjectAfterItsDeinitIsReported() {
        let report = guardOracle.evaluate(weakCount(answer: 1, countAt: 50), facts: RunFacts())
        XCTAssertEqual(report.violationCounts, [.nonLinearizable: 1], messages(report))
        XCTAssertTrue(
            messages(report).contains("counted 1 registrations, but 0 were surely and 0 possibly registered"),
            messages(report))
    }

    func testACountOfZeroAfterTheDeinitAndOfOneDuringItPass() {
        for (answer, call): (Int, UInt64) in [(0, 50), (1, 35), (0, 35)] {
            let report = guardOracle.evaluate(weakCount(answer: answer, countAt: call), facts: RunFacts())
            XCTAssertTrue(report.passed, "answer \(answer) at \(call): \(messages(report))")
        }
    }

    /// Without a recorded deinit (a deinit outside every operation) the registration only may have ended, as before;
    /// a strongly holding controller's registration is not ended by a deinit time; the raw runtime, and a system that
    /// does not drop weak registrations inside the object's deinit, promise nothing.
    func testTheDeinitEndsOnlyAWeakRegistrationOfTheGuardWhoseDeinitWasRecorded() {
        XCTAssertTrue(guardOracle.evaluate(weakCount(answer: 1, countAt: 50, deinitRecorded: false), facts: RunFacts()).passed)
        XCTAssertTrue(guardOracle.evaluate(weakCount(answer: 1, countAt: 50, weak: false), facts: RunFacts()).passed)
        XCTAssertTrue(rawOracle.evaluate(weakCount(answer: 1, countAt: 50), facts: RunFacts()).passed)
        // A system that drops weak registrations only when a stand-in of the object goes (twins) promises nothing.
        let noPromise = Oracle(checksGuardSemantics: true)
        XCTAssertTrue(noPromise.evaluate(weakCount(answer: 1, countAt: 50), facts: RunFacts()).passed)
    }

    func testAnUnobserveAllThatRemovesAWeaklyHeldRegistrationAfterItsObjectDeinitIsReported() {
        var builder = HistoryBuilder()
        builder.history.weakControllers.insert(HistoryBuilder.controller)
        builder.observe(.k0, at: 10, returning: 20)
        builder.takeOutOfSlot(at: 30, returning: 40)
        builder.history.objectDeinitTimes[HistoryBuilder.object] = 40
        builder.unobserveAll(at: 50, returning: 60, removed: 1)
        let report = guardOracle.evaluate(builder.history, facts: RunFacts())
        XCTAssertEqual(report.violationCounts, [.nonLinearizable: 1], messages(report))
        XCTAssertTrue(messages(report).contains("removed 1 registrations"), messages(report))
    }

    // MARK: Released objects that outlive every holder

    /// Object 300 observed (10–20) and, if `unobserving`, unobserved (30–40) through a strongly holding controller,
    /// released from its slot (50–60), and still alive when the workers finished.
    private func unobservedThenReleased(unobserving: Bool = true) -> HistoryBuilder {
        var builder = HistoryBuilder()
        builder.observe(.k0, at: 10, returning: 20)
        if unobserving { builder.unobserve(.k0, at: 30, returning: 40) }
        builder.takeOutOfSlot(at: 50, returning: 60)
        builder.history.releasedObjectsAliveAtEnd = [HistoryBuilder.object]
        return builder
    }

    func testAReleasedObjectThatOutlivesItsLastRegistrationWhileItsControllerLivesIsALeak() {
        let report = guardOracle.evaluate(unobservedThenReleased().history, facts: RunFacts())
        XCTAssertEqual(report.violationCounts, [.leak: 1], messages(report))
        XCTAssertTrue(messages(report).contains("object 300 was released from its slot"), messages(report))
        XCTAssertEqual(report.checks["released objects nothing holds are gone before the teardown"], 1)
    }

    func testAReleasedObjectThatIsGoneOrThatSomethingMayStillHoldIsNoLeak() {
        var gone = unobservedThenReleased()
        gone.history.releasedObjectsAliveAtEnd = []
        XCTAssertTrue(guardOracle.evaluate(gone.history, facts: RunFacts()).passed)

        // Still registered with a controller that holds its objects strongly.
        let stillRegistered = unobservedThenReleased(unobserving: false)
        XCTAssertTrue(guardOracle.evaluate(stillRegistered.history, facts: RunFacts()).passed)

        // Still registered with a weakly holding controller: a planted bug's baseline holds such objects strongly.
        var weaklyRegistered = HistoryBuilder()
        weaklyRegistered.history.weakControllers.insert(HistoryBuilder.controller)
        weaklyRegistered.observe(.k0, at: 10, returning: 20)
        weaklyRegistered.takeOutOfSlot(at: 50, returning: 60)
        weaklyRegistered.history.releasedObjectsAliveAtEnd = [HistoryBuilder.object]
        XCTAssertTrue(guardOracle.evaluate(weaklyRegistered.history, facts: RunFacts()).passed)

        // Linked by another object (the last link set on it).
        var linked = unobservedThenReleased()
        linked.link(HistoryBuilder.object + 1, to: HistoryBuilder.object, at: 45, returning: 46)
        XCTAssertTrue(guardOracle.evaluate(linked.history, facts: RunFacts()).passed)

        // Adopted by a handler instead of released.
        var adopted = HistoryBuilder()
        adopted.observe(.k0, at: 10, returning: 20)
        adopted.unobserve(.k0, at: 30, returning: 40)
        adopted.takeOutOfSlot(.adoptObject, at: 50, returning: 60)
        adopted.history.releasedObjectsAliveAtEnd = [HistoryBuilder.object]
        XCTAssertTrue(guardOracle.evaluate(adopted.history, facts: RunFacts()).passed)

        // Without guard semantics no removal surely ended the registration.
        XCTAssertTrue(rawOracle.evaluate(unobservedThenReleased().history, facts: RunFacts()).passed)
    }

    func testAReleasedObjectIsNoLongerLinkedOnceItsLinkerLinksAnotherAndLeaksThen() {
        var builder = unobservedThenReleased()
        builder.link(HistoryBuilder.object + 1, to: HistoryBuilder.object, at: 41, returning: 42)
        builder.link(HistoryBuilder.object + 1, from: HistoryBuilder.object, to: nil, at: 43, returning: 44)
        let report = guardOracle.evaluate(builder.history, facts: RunFacts())
        XCTAssertEqual(report.violationCounts, [.leak: 1], messages(report))
    }

    func testAnObjectNeverRegisteredMustBeGoneForEveryTarget() {
        var builder = HistoryBuilder()
        builder.takeOutOfSlot(at: 10, returning: 20)
        builder.history.releasedObjectsAliveAtEnd = [HistoryBuilder.object]
        for oracle in [guardOracle, rawOracle] {
            XCTAssertEqual(oracle.evaluate(builder.history, facts: RunFacts()).violationCounts, [.leak: 1])
        }
    }

    // MARK: What runs record

    /// A controlled run of the guard records the deinit of objects released inside operations, with a time no
    /// earlier than the release's call, and passes (the released objects still alive were all legitimately held).
    func testAControlledRunOfTheGuardRecordsObjectDeinitsAndPasses() {
        var configuration = ScenarioProfile.teardown.configuration()
        configuration.workers = 3
        configuration.operationsPerWorker = 60
        var deinits = 0
        for seed: UInt64 in 1...5 {
            let result = ControlledRunner(settings: ControlledFixtures.settings(.random)).runAndEvaluate(
                Scenario(configuration: configuration, seed: seed),
                against: GuardTarget(diagnostics: CountingSink(keepsEvents: false)))
            XCTAssertTrue(result.verdict.passed, "seed \(seed): \(messages(result.verdict))")
            let releases = result.history.operations.filter { $0.kind == .releaseObject && $0.object >= 0 }
            for release in releases {
                guard let gone = result.history.objectDeinitTimes[release.object] else { continue }
                XCTAssertGreaterThanOrEqual(gone, release.call, "seed \(seed)")
            }
            deinits += result.history.objectDeinitTimes.count
        }
        XCTAssertGreaterThan(deinits, 0, "no object deinit was recorded in five teardown runs")
    }
}
