@testable import FaultInjector
import GuardCore
import XCTest

/// The search as `explore --jobs N` drives it: several executions asked for before the earlier ones report back (here
/// run one after the other in this process, in the order they were asked for). It meets every class the one-at-a-time
/// search meets, with the same histories; and while other work is left it gives no second branch of a state whose
/// first branch still runs (the second could not have the first's step in its sleep set and would repeat classes).
final class ExplorerConcurrentSearchTests: XCTestCase {
    /// Explores with up to `inFlight` executions asked for at once, taking them in first-asked first (or, with
    /// `newestFirst`, the most recently asked first: reports coming back out of order); returns the outcome and each
    /// class's verdict.
    private func search(
        _ scenario: Scenario, _ target: any SystemUnderTest, inFlight: Int, newestFirst: Bool = false, bound: Int? = nil
    ) -> (outcome: ExplorationOutcome, verdicts: [[UInt64]: ClassVerdict]) {
        var settings = ExplorationSettings()
        settings.stopsAtFirstViolation = false
        settings.preemptionBound = bound
        let explorer = Explorer(scenario: scenario, target: target, settings: settings)
        var search = ExplorationSearch(explorer: explorer, progress: { _ in })
        var running: [ExecutionRequest] = []
        while search.stop == nil {
            while running.count < inFlight, let request = search.tree.nextRequest() { running.append(request) }
            guard !running.isEmpty else { break }
            let request = newestFirst ? running.removeLast() : running.removeFirst()
            search.take(explorer.execute(request), for: request)
        }
        return (search.outcome(), search.verdicts)
    }

    /// Two workers racing an observe with `.initial`, changes and an unobserve against the observer's release.
    static let releaseRace = """
        worker 0:
          observe c0 o0 k0 [initial,new]
          mutate o0 k0
          unobserve c0 o0 k0
        worker 1:
          release-observer c0
          mutate o0 k0
          unobserve-all c0
        """

    /// Two workers racing an unobserve against changes (what `bug-delivery-check-removed` fails on) and a new observe.
    static let unobserveRace = """
        worker 0:
          observe c0 o0 k0 [new]
          mutate o0 k0
          mutate o0 k0
        worker 1:
          unobserve c0 o0 k0
          mutate o0 k0
          observe c0 o0 k0 [new]
        """

    /// Explores as `explore --jobs N` does, with up to `jobs` jobs at once run in this process (see
    /// ``ExplorationSearch/nextJob()``): single executions near the root, whole subtrees handed off below. Returns
    /// the outcome, each class's verdict and how many subtrees were handed off.
    private func searchWithJobs(
        _ scenario: Scenario, _ target: any SystemUnderTest, jobs: Int, newestFirst: Bool = false,
        reduction: Bool = true, bound: Int? = nil
    ) -> (outcome: ExplorationOutcome, verdicts: [[UInt64]: ClassVerdict], subtrees: Int) {
        var settings = ExplorationSettings()
        settings.stopsAtFirstViolation = false
        settings.reduction = reduction
        settings.preemptionBound = bound
        let explorer = Explorer(scenario: scenario, target: target, settings: settings)
        var search = ExplorationSearch(explorer: explorer, progress: { _ in })
        var running: [ExplorationJob] = []
        var subtrees = 0
        while search.stop == nil {
            while running.count < jobs, let job = search.nextJob() { running.append(job) }
            guard !running.isEmpty else { break }
            let job = newestFirst ? running.removeLast() : running.removeFirst()
            var answer = ExplorationJobAnswer()
            if let request = job.subtree {
                subtrees += 1
                answer.subtree = explorer.exploreSubtree(request, from: job.firstReport, limit: nil)
            } else {
                answer.report = explorer.execute(job.execution!)
            }
            search.take(.success(answer), for: job)
        }
        search.releaseUnsent()
        return (search.outcome(), search.verdicts, subtrees)
    }

    private func guardScenario(_ text: String) throws -> Scenario {
        try ScenarioFile.parse(text, path: "concurrent.scenario").scenario
    }

    private func assertSameClasses(
        _ scenario: Scenario, _ target: @autoclosure () -> any SystemUnderTest, inFlight: Int
    ) -> (alone: ExplorationOutcome, together: ExplorationOutcome) {
        let alone = search(scenario, target(), inFlight: 1)
        let together = search(scenario, target(), inFlight: inFlight)
        XCTAssertEqual(alone.outcome.answer, .complete, alone.outcome.summary)
        XCTAssertEqual(together.outcome.answer, .complete, together.outcome.summary)
        XCTAssertEqual(together.verdicts, alone.verdicts, "the same classes with the same histories and verdicts")
        return (alone.outcome, together.outcome)
    }

    /// Three guard workers, 2 and 4 executions asked for at once: the one-at-a-time search's classes. With 2 at once
    /// on the first scenario, not one execution more (a search that issued siblings beside running ones ran 297
    /// executions for its 204).
    func testThreeGuardWorkersExploreTheSameClasses() throws {
        let first = try guardScenario(
            """
            worker 0:
              observe c0 o0 k0 [initial,new]
            worker 1:
              release-observer c0
            worker 2:
              mutate o0 k0
            """)
        let second = try guardScenario(
            """
            worker 0:
              observe c0 o0 k0 []
            worker 1:
              observe c0 o0 k0 []
            worker 2:
              unobserve c0 o0 k0
            """)
        for inFlight in [2, 4] {
            let counts = assertSameClasses(first, GuardTarget(diagnostics: CountingSink(keepsEvents: false)), inFlight: inFlight)
            if inFlight == 2 {
                XCTAssertEqual(counts.together.executions, counts.alone.executions, counts.together.summary)
            }
            _ = assertSameClasses(second, GuardTarget(diagnostics: CountingSink(keepsEvents: false)), inFlight: inFlight)
        }
    }

    /// Three guard workers whose executions come back out of order (the newest of 4 first): the same classes with
    /// the same histories. A worker waiting for a lock a third one holds still races with the steps it waits
    /// behind; when such races were dropped, the in-order search met 1,308 classes here and this one 1,257.
    func testThreeGuardWorkersOutOfOrderExploreTheSameClasses() throws {
        let scenario = try guardScenario(
            """
            worker 0:
              observe c0 o0 k0 [initial,new]
              mutate o0 k0
            worker 1:
              release-observer c0
              mutate o0 k0
            worker 2:
              mutate o0 k0
            """)
        let target = GuardTarget(diagnostics: CountingSink(keepsEvents: false))
        let alone = search(scenario, target, inFlight: 1)
        let outOfOrder = search(scenario, target, inFlight: 4, newestFirst: true)
        XCTAssertEqual(alone.outcome.answer, .complete, alone.outcome.summary)
        XCTAssertEqual(outOfOrder.outcome.answer, .complete, outOfOrder.outcome.summary)
        XCTAssertGreaterThan(alone.verdicts.count, 1_308, alone.outcome.summary)
        XCTAssertEqual(outOfOrder.verdicts, alone.verdicts, "the same classes with the same histories and verdicts")
    }

    /// Subtrees handed off whole (as child processes explore them): with one job at a time, exactly the
    /// one-at-a-time search (the same classes, histories and executions: a subtree explored in one piece, its
    /// backtracking added above afterwards, is what the sequential search does); with 2 jobs in order and 3 newest
    /// first, the same classes with the same histories. Two guard workers and three.
    func testSubtreesHandedOffExploreTheSameClasses() throws {
        let two = try guardScenario(Self.releaseRace)
        let three = try guardScenario(
            """
            worker 0:
              observe c0 o0 k0 [initial,new]
              mutate o0 k0
            worker 1:
              release-observer c0
              mutate o0 k0
            worker 2:
              mutate o0 k0
            """)
        for scenario in [two, three] {
            let target = GuardTarget(diagnostics: CountingSink(keepsEvents: false))
            let alone = search(scenario, target, inFlight: 1)
            XCTAssertEqual(alone.outcome.answer, .complete, alone.outcome.summary)
            let oneJob = searchWithJobs(scenario, target, jobs: 1)
            XCTAssertGreaterThan(oneJob.subtrees, 5, "subtrees were handed off")
            XCTAssertEqual(oneJob.outcome.answer, .complete, oneJob.outcome.summary)
            XCTAssertEqual(oneJob.outcome.executions, alone.outcome.executions, oneJob.outcome.summary)
            XCTAssertEqual(oneJob.verdicts, alone.verdicts, "one job: the same classes with the same histories")
            for (jobs, newestFirst) in [(2, false), (3, true)] {
                let together = searchWithJobs(scenario, target, jobs: jobs, newestFirst: newestFirst)
                XCTAssertEqual(together.outcome.answer, .complete, together.outcome.summary)
                XCTAssertEqual(together.verdicts, alone.verdicts, "\(jobs) jobs: the same classes with the same histories")
            }
            print("alone: \(alone.outcome.summary); \(oneJob.subtrees) subtrees handed off: \(oneJob.outcome.summary)")
        }
    }

    /// With a preemption bound, subtrees handed off (whose backtracking above is bounded: the race's worker where
    /// the race begins and where its run began) meet the one-at-a-time search's classes, one job or two.
    func testBoundedSubtreesExploreTheSameClasses() throws {
        let scenario = try guardScenario(Self.releaseRace)
        let target = GuardTarget(diagnostics: CountingSink(keepsEvents: false))
        let alone = search(scenario, target, inFlight: 1, bound: 2)
        XCTAssertEqual(alone.outcome.answer, .completeUpToPreemptions(2), alone.outcome.summary)
        let oneJob = searchWithJobs(scenario, target, jobs: 1, bound: 2)
        XCTAssertGreaterThan(oneJob.subtrees, 0)
        XCTAssertEqual(oneJob.outcome.executions, alone.outcome.executions, oneJob.outcome.summary)
        XCTAssertEqual(oneJob.verdicts, alone.verdicts)
        let twoJobs = searchWithJobs(scenario, target, jobs: 2, bound: 2)
        XCTAssertEqual(twoJobs.outcome.answer, .completeUpToPreemptions(2), twoJobs.outcome.summary)
        XCTAssertEqual(twoJobs.verdicts, alone.verdicts)
        print("bound 2 alone: \(alone.outcome.summary); \(oneJob.subtrees) subtrees: \(oneJob.outcome.summary)")
    }

    /// A planted bug's failures inside subtrees handed off are found: every failing class, with the same signatures
    /// and histories as the one-at-a-time search.
    func testFailuresInsideSubtreesAreFound() throws {
        let scenario = try guardScenario(Self.unobserveRace)
        let target = PlantedBugTarget(.deliveryCheckRemoved)
        let alone = search(scenario, target, inFlight: 1)
        let together = searchWithJobs(scenario, target, jobs: 2)
        XCTAssertEqual(alone.outcome.answer, .violation, alone.outcome.summary)
        XCTAssertEqual(together.outcome.answer, .violation, together.outcome.summary)
        XCTAssertGreaterThan(together.subtrees, 0)
        XCTAssertGreaterThan(together.verdicts.values.filter { !$0.signature.isEmpty }.count, 1)
        print("alone: \(alone.outcome.summary); \(together.subtrees) subtrees handed off: \(together.outcome.summary)")
        XCTAssertEqual(Set(together.outcome.failures.map(\.signature)), Set(alone.outcome.failures.map(\.signature)))
        XCTAssertEqual(together.verdicts, alone.verdicts)
    }

    /// The toy counts hold with subtrees handed off, 2 jobs at once: a preemption bound of 1 and 2 meets the closed
    /// forms (k = 5: 10 and 42 classes, backtracking for the states above a subtree included), and without reduction
    /// every interleaving runs once (n = 8 steps each: 1,404 within one preemption, C(16, 8) = 12,870 in all).
    func testToyCountsHoldWithSubtreesHandedOff() {
        let scenario = ToyScenarios.lockSteps(workers: 2)
        for bound in [1, 2] {
            let bounded = searchWithJobs(scenario, ToyTarget(.shared(steps: 5)), jobs: 2, bound: bound)
            XCTAssertEqual(bounded.outcome.answer, .completeUpToPreemptions(bound), bounded.outcome.summary)
            XCTAssertEqual(bounded.outcome.classes, ExplorerBoundedCountTests.withinBound(5, bound), bounded.outcome.summary)
        }
        let withinOne = searchWithJobs(scenario, ToyTarget(.shared(steps: 1)), jobs: 2, reduction: false, bound: 1)
        XCTAssertEqual(withinOne.outcome.executions, ExplorerBoundedCountTests.withinBound(8, 1), withinOne.outcome.summary)
        let all = searchWithJobs(scenario, ToyTarget(.shared(steps: 1)), jobs: 2, reduction: false)
        XCTAssertEqual(all.outcome.answer, .complete, all.outcome.summary)
        XCTAssertEqual(all.outcome.executions, ExplorerBoundedCountTests.binomial(16, 8), all.outcome.summary)
        XCTAssertGreaterThan(all.subtrees, 0)
    }

    /// A toy target with a closed-form count: two workers on one shared lock, C(6, 3) = 20 classes, with 3 at once.
    func testToyCountsHoldWithSeveralExecutionsAtOnce() {
        let together = search(ToyScenarios.lockSteps(workers: 2), ToyTarget(.shared(steps: 3)), inFlight: 3)
        XCTAssertEqual(together.outcome.answer, .complete, together.outcome.summary)
        XCTAssertEqual(together.outcome.classes, 20, together.outcome.summary)
    }
}
