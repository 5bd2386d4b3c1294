@testable import FaultInjector
import Foundation
import GuardCore
import XCTest

/// The packed form in which `explore --jobs N` sends requests and reports between processes: every field comes back
/// as it went, and bytes that are not a packed value are an error, never a crash or a wrong value.
final class ExplorationWireTests: XCTestCase {
    private static let scenarioText = """
        worker 0:
          observe c0 o0 k0 [initial,new]
          mutate o0 k0
        worker 1:
          release-observer c0
          unobserve c0 o0 k0
        """

    /// Reports and requests of a real exploration (every execution of it) round-trip field by field.
    func testEveryRequestAndReportOfAnExplorationComesBackAsItWent() throws {
        let scenario = try ScenarioFile.parse(Self.scenarioText, path: "wire.scenario").scenario
        let explorer = Explorer(scenario: scenario, target: GuardTarget(diagnostics: CountingSink(keepsEvents: false)))
        var search = ExplorationSearch(explorer: explorer, progress: { _ in })
        var compared = 0
        var sleeping = 0
        let outcome = search.run { request in
            let report = explorer.execute(request)
            do {
                let request2 = try ExecutionRequest(packed: request.packed)
                XCTAssertEqual(request2.prefix, request.prefix)
                XCTAssertEqual(request2.checks, request.checks)
                XCTAssertEqual(request2.sleep, request.sleep)
                XCTAssertEqual(request2.usesSleepSets, request.usesSleepSets)
                sleeping += request.sleep.entries.isEmpty ? 0 : 1
                let report2 = try ExecutionReport(packed: report.packed)
                XCTAssertEqual(report2.execution.steps, report.execution.steps)
                XCTAssertEqual(report2.execution.objectWords, report.execution.objectWords)
                XCTAssertEqual(report2.execution.objectNames, report.execution.objectNames)
                XCTAssertEqual(report2.execution.sleepBlockedAt, report.execution.sleepBlockedAt)
                XCTAssertEqual(report2.problem, report.problem)
                XCTAssertEqual(report2.classHash, report.classHash)
                XCTAssertEqual(report2.canonicalDigest, report.canonicalDigest)
                XCTAssertEqual(report2.signature, report.signature)
                XCTAssertEqual(report2.examples, report.examples)
                XCTAssertEqual(report2.canonicalWorkers, report.canonicalWorkers)
                XCTAssertEqual(report2.scheduleWorkers, report.scheduleWorkers)
                XCTAssertEqual(report2.schedulePoints, report.schedulePoints)
                compared += 1
            } catch {
                XCTFail("a packed value did not read back: \(error)")
            }
            return report
        }
        XCTAssertEqual(outcome.answer, .complete)
        XCTAssertEqual(compared, outcome.executions)
        XCTAssertGreaterThan(compared, 10, "the scenario has many classes")
        XCTAssertGreaterThan(sleeping, 0, "some requests carry sleep sets")
    }

    /// A subtree's report (what a child process sends back for a subtree it explored) round-trips: counts, every
    /// class's verdict, failures, the branch step and the backtracking for the states above.
    func testASubtreeReportComesBackAsItWent() throws {
        let scenario = try ScenarioFile.parse(ExplorerConcurrentSearchTests.unobserveRace, path: "subtree.scenario").scenario
        var settings = ExplorationSettings()
        settings.stopsAtFirstViolation = false
        let explorer = Explorer(scenario: scenario, target: PlantedBugTarget(.deliveryCheckRemoved), settings: settings)
        // The subtrees a search hands off, as `explore --jobs N` does; the first with more than one class.
        var search = ExplorationSearch(explorer: explorer, progress: { _ in })
        var found: SubtreeReport?
        while found == nil, let job = search.nextJob() {
            var answer = ExplorationJobAnswer()
            if let request = job.subtree {
                let subtree = explorer.exploreSubtree(request, from: job.firstReport, limit: nil)
                if subtree.verdicts.count > 1, !subtree.failures.isEmpty { found = subtree }
                answer.subtree = subtree
            } else {
                answer.report = explorer.execute(job.execution!)
            }
            search.take(.success(answer), for: job)
        }
        var report = try XCTUnwrap(found, "a subtree with several classes and a failure")
        report.stop = .notAProof("a reason")
        report.notes += [.sourceSet(depth: 2, initials: [0, 1], preferred: 1), .bounded(depth: 3, worker: 1)]
        XCTAssertGreaterThan(report.verdicts.count, 1)
        let back = try SubtreeReport(packed: report.packed)
        XCTAssertEqual(back.executions, report.executions)
        XCTAssertEqual(back.sleepBlocked, report.sleepBlocked)
        XCTAssertEqual(back.verdicts.map(\.classHash), report.verdicts.map(\.classHash))
        XCTAssertEqual(back.verdicts.map(\.verdict), report.verdicts.map(\.verdict))
        XCTAssertEqual(back.failures.map(\.signature), report.failures.map(\.signature))
        XCTAssertEqual(back.failures.map(\.canonicalSchedule), report.failures.map(\.canonicalSchedule))
        XCTAssertEqual(back.failures.map(\.examples), report.failures.map(\.examples))
        XCTAssertEqual(back.failures.map(\.execution), report.failures.map(\.execution))
        XCTAssertEqual(back.stop, report.stop)
        XCTAssertEqual(back.notes, report.notes)
    }

    /// Extreme numbers survive: negative, the widest 64-bit words, absent and present optionals.
    func testExtremeNumbersRoundTrip() throws {
        let check = DecisionCheck(point: 255, current: -1, runnable: .max, signature: .max)
        let step = ExploredStep(
            worker: 63, current: -1, point: 255, runnable: .max,
            accesses: [StepAccess(object: 0, writes: true, releaseOnly: true)])
        let entry = SleepEntry(
            step: step, depth: 0, touches: TouchIndex(),
            execution: ExploredExecution(steps: [step], objectWords: [200], objectNames: [.min]))
        XCTAssertEqual(try ExploredStep(packed: step.packed), step)
        let request = ExecutionRequest(
            prefix: [0, 63, 1], checks: [check, DecisionCheck(point: 0, current: 0, runnable: 0, signature: nil)],
            sleep: SleepSet([entry]), usesSleepSets: false)
        let back = try ExecutionRequest(packed: request.packed)
        XCTAssertEqual(back.prefix, request.prefix)
        XCTAssertEqual(back.checks, request.checks)
        XCTAssertEqual(back.sleep, request.sleep)
        XCTAssertFalse(back.usesSleepSets)
        let access = StepAccess(object: .max, writes: false, releaseOnly: true)
        XCTAssertEqual(try StepAccess(packed: access.packed), access)
    }

    /// Truncated, padded or garbled bytes throw.
    func testBytesThatAreNotAPackedValueThrow() throws {
        let request = ExecutionRequest(
            prefix: [0, 1], checks: [DecisionCheck(point: 65, current: 0, runnable: 3, signature: 7)],
            sleep: SleepSet(), usesSleepSets: true)
        let bytes = try XCTUnwrap(Data(base64Encoded: request.packed))
        for cut in 0..<bytes.count {
            XCTAssertThrowsError(try ExecutionRequest(packed: Data(bytes.prefix(cut)).base64EncodedString()), "cut at \(cut)")
        }
        XCTAssertThrowsError(try ExecutionRequest(packed: (bytes + [0]).base64EncodedString()), "a byte too many")
        XCTAssertThrowsError(try ExecutionRequest(packed: "not base64!"))
        // A list that claims more elements than there are bytes is refused before anything is allocated.
        XCTAssertThrowsError(try ExecutionRequest(packed: Data([0xFF, 0xFF, 0xFF, 0xFF, 0x0F]).base64EncodedString()))
        // A flag byte other than 0 or 1, a byte field out of range.
        XCTAssertThrowsError(try ExecutionRequest(packed: Data([0, 0, 0, 2]).base64EncodedString()))
        XCTAssertThrowsError(try DecisionCheck(packed: Data([0x80, 0x04, 0, 0, 0]).base64EncodedString()))
    }
}
