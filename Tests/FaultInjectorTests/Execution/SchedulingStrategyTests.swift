@testable import FaultInjector
import GuardCore
import XCTest

/// The strategies on their own, fed synthetic decisions: PCT's priorities and change points, random's uniformity,
/// replay's divergence reports; and the schedule's text form.
final class SchedulingStrategyTests: XCTestCase {
    private func decision(_ step: Int, runnable: [Int], current: Int?, point: SchedulePoint = .acquire) -> SchedulingDecision {
        SchedulingDecision(step: step, runnable: runnable, current: current, point: point)
    }

    // MARK: PCT

    func testPCTDrawsDistinctPrioritiesAndDepthMinusOneChangePoints() {
        for depth in [1, 2, 3, 5, 10] {
            for seed: UInt64 in 1...20 {
                let pct = PCTStrategy(depth: depth, workers: 4, expectedSteps: 500, seed: seed)
                XCTAssertEqual(pct.changePoints.count, depth - 1, "depth \(depth) seed \(seed)")
                XCTAssertEqual(pct.changePoints, pct.changePoints.sorted())
                XCTAssertEqual(Set(pct.changePoints).count, pct.changePoints.count, "change points are distinct")
                XCTAssertTrue(pct.changePoints.allSatisfy { (1...500).contains($0) }, "\(pct.changePoints)")
                XCTAssertEqual(Set(pct.priorities).count, 4, "priorities are distinct")
                XCTAssertEqual(Set(pct.priorities), Set(depth..<(depth + 4)), "initial priorities sit above every lowered one")
            }
        }
    }

    func testPCTChangePointsAreSpreadOverTheExpectedSteps() {
        var histogram = [Int](repeating: 0, count: 10)
        for seed: UInt64 in 1...2_000 {
            for point in PCTStrategy(depth: 3, workers: 3, expectedSteps: 1_000, seed: seed).changePoints {
                histogram[(point - 1) / 100] += 1
            }
        }
        // 4,000 points in 10 buckets of 100 steps: about 400 each.
        for (bucket, count) in histogram.enumerated() {
            XCTAssertTrue((300...500).contains(count), "bucket \(bucket): \(count) of 4,000 (\(histogram))")
        }
    }

    func testPCTRunsTheHighestPriorityWorkerAndLowersTheRunningOneAtEachChangePoint() {
        let pct0 = PCTStrategy(depth: 4, workers: 5, expectedSteps: 300, seed: 42)
        var pct = pct0
        var current: Int?
        var switchesAt: [Int] = []
        for step in 0..<300 {
            let chosen = pct.choose(decision(step, runnable: [0, 1, 2, 3, 4], current: current))
            let best = (0..<5).max { pct.priorities[$0] < pct.priorities[$1] }!
            XCTAssertEqual(chosen, best, "step \(step): PCT must run the highest-priority runnable worker")
            if let current, current != chosen { switchesAt.append(pct.countedSteps) }
            current = chosen
        }
        // With every worker runnable, the run switches exactly at the change points: each lowers the running
        // worker below all initial priorities.
        XCTAssertEqual(switchesAt, pct0.changePoints)
        XCTAssertEqual(pct.countedSteps, 300)
        let lowered = pct.priorities.filter { $0 < 4 }.sorted()
        XCTAssertEqual(lowered, [1, 2, 3], "the i-th change point gives the running worker priority i")
    }

    func testPCTCountsOnlyDecisionsWithAChoiceAndFollowsBlockedWorkers() {
        var pct = PCTStrategy(depth: 2, workers: 3, expectedSteps: 10, seed: 7)
        // Decisions with one runnable worker are not counted and always run that worker.
        for step in 0..<50 {
            XCTAssertEqual(pct.choose(decision(step, runnable: [2], current: 2)), 2)
        }
        XCTAssertEqual(pct.countedSteps, 0)
        // When the favourite blocks, the next one runs.
        let order = (0..<3).sorted { pct.priorities[$0] > pct.priorities[$1] }
        XCTAssertEqual(pct.choose(decision(50, runnable: [0, 1, 2].filter { $0 != order[0] }, current: order[0])), order[1])
        XCTAssertEqual(pct.countedSteps, 1)
    }

    func testPCTWithTheSameSeedChoosesTheSame() {
        var first = PCTStrategy(depth: 3, workers: 4, expectedSteps: 100, seed: 99)
        var second = PCTStrategy(depth: 3, workers: 4, expectedSteps: 100, seed: 99)
        var generator = Xoshiro256StarStar(seed: 1)
        var current: Int?
        for step in 0..<200 {
            let runnable = (0..<4).filter { _ in generator.chance(0.7) }
            guard !runnable.isEmpty else { continue }
            let choice = first.choose(decision(step, runnable: runnable, current: current))
            XCTAssertEqual(choice, second.choose(decision(step, runnable: runnable, current: current)))
            current = choice
        }
        XCTAssertNotEqual(
            PCTStrategy(depth: 3, workers: 4, expectedSteps: 100, seed: 99).changePoints
                + PCTStrategy(depth: 3, workers: 4, expectedSteps: 100, seed: 99).priorities,
            PCTStrategy(depth: 3, workers: 4, expectedSteps: 100, seed: 100).changePoints
                + PCTStrategy(depth: 3, workers: 4, expectedSteps: 100, seed: 100).priorities)
    }

    // MARK: Random

    func testRandomIsUniformAmongTheRunnableWorkers() {
        var random = RandomStrategy(seed: 2_024)
        var counts = [Int](repeating: 0, count: 4)
        let draws = 40_000
        for step in 0..<draws {
            counts[random.choose(decision(step, runnable: [0, 1, 2, 3], current: step % 4))] += 1
        }
        // Expected 10,000 each, standard deviation about 87: six deviations either way.
        for (worker, count) in counts.enumerated() {
            XCTAssertTrue((9_480...10_520).contains(count), "worker \(worker) chosen \(count) times of \(draws): \(counts)")
        }
        let chiSquare = counts.reduce(0.0) { $0 + pow(Double($1) - 10_000, 2) / 10_000 }
        XCTAssertLessThan(chiSquare, 16.27, "chi-square \(chiSquare) with 3 degrees of freedom is beyond p = 0.001")
    }

    func testRandomOnlyChoosesRunnableWorkers() {
        var random = RandomStrategy(seed: 3)
        var seen: Set<Int> = []
        for step in 0..<1_000 {
            let choice = random.choose(decision(step, runnable: [1, 4, 6], current: nil))
            XCTAssertTrue([1, 4, 6].contains(choice))
            seen.insert(choice)
        }
        XCTAssertEqual(seen, [1, 4, 6])
        XCTAssertEqual(random.choose(decision(1_000, runnable: [5], current: 1)), 5)
    }

    // MARK: Replay

    private let recorded = Schedule(workers: [0, 1, 1, 0], points: [.start, .operation, .acquire, .release])

    func testReplayFollowsTheScheduleAndEndsWithoutDivergence() {
        var replay = ReplayStrategy(schedule: recorded)
        XCTAssertEqual(replay.choose(decision(0, runnable: [0, 1], current: nil, point: .start)), 0)
        XCTAssertEqual(replay.choose(decision(1, runnable: [0, 1], current: 0, point: .operation)), 1)
        XCTAssertEqual(replay.choose(decision(2, runnable: [0, 1], current: 1, point: .acquire)), 1)
        XCTAssertEqual(replay.choose(decision(3, runnable: [0, 1], current: 1, point: .release)), 0)
        replay.runEnded(steps: 4)
        XCTAssertNil(replay.divergence)
    }

    func testReplayReportsAWorkerThatCannotRun() {
        var replay = ReplayStrategy(schedule: recorded)
        _ = replay.choose(decision(0, runnable: [0, 1], current: nil, point: .start))
        let fallback = replay.choose(decision(1, runnable: [0], current: 0, point: .operation))
        XCTAssertEqual(fallback, 0, "after a divergence the run goes on without preemption")
        XCTAssertEqual(
            replay.divergence?.description,
            "the schedule diverged at step 1: the recording runs worker 1 next, but it is blocked or finished (runnable: 0)")
        // Only the first divergence is kept.
        _ = replay.choose(decision(2, runnable: [0, 1], current: 0, point: .finish))
        XCTAssertEqual(replay.divergence?.step, 1)
    }

    func testReplayReportsAPointThatDiffers() {
        var replay = ReplayStrategy(schedule: recorded)
        _ = replay.choose(decision(0, runnable: [0, 1], current: nil, point: .start))
        XCTAssertEqual(replay.choose(decision(1, runnable: [0, 1], current: 0, point: .wait)), 0, "no preemption after a divergence")
        XCTAssertEqual(
            replay.divergence?.description,
            "the schedule diverged at step 1: the run reached wait (worker 0) where the recording reached operation")
    }

    func testReplayReportsARunThatIsShorterOrLonger() {
        var short = ReplayStrategy(schedule: recorded)
        _ = short.choose(decision(0, runnable: [0, 1], current: nil, point: .start))
        short.runEnded(steps: 1)
        XCTAssertEqual(short.divergence?.description, "the schedule diverged at step 1: the run ended after 1 steps; the recording has 4")

        var long = ReplayStrategy(schedule: recorded.prefix(2))
        _ = long.choose(decision(0, runnable: [0, 1], current: nil, point: .start))
        _ = long.choose(decision(1, runnable: [0, 1], current: 0, point: .operation))
        XCTAssertEqual(long.choose(decision(2, runnable: [0, 1], current: 1)), 1)
        XCTAssertEqual(long.divergence?.description, "the schedule diverged at step 2: the recording ends after 2 steps but the run goes on")

        var allowed = ReplayStrategy(schedule: recorded.prefix(2), allowsLongerRuns: true)
        _ = allowed.choose(decision(0, runnable: [0, 1], current: nil, point: .start))
        _ = allowed.choose(decision(1, runnable: [0, 1], current: 0, point: .operation))
        XCTAssertEqual(allowed.choose(decision(2, runnable: [0, 1], current: 1)), 1)
        XCTAssertNil(allowed.divergence)
    }

    // MARK: Strategy names

    func testStrategyChoiceParsesNamesAndDepths() throws {
        XCTAssertEqual(try StrategyChoice(name: "random", depth: nil), .random)
        XCTAssertEqual(try StrategyChoice(name: "pct", depth: 3), .pct(depth: 3))
        XCTAssertEqual(StrategyChoice.pct(depth: 3).description, "pct depth 3")
        let cases: [(String, Int?, String)] = [
            ("random", 2, "strategy random takes no depth (only pct does)"),
            ("pct", nil, "strategy pct needs a depth"),
            ("pct", 0, "the pct depth must be between 1 and 100 (is 0)"),
            ("pct", 101, "the pct depth must be between 1 and 100 (is 101)"),
            ("dfs", nil, "there is no strategy \"dfs\" (known: random, pct)"),
        ]
        for (name, depth, message) in cases {
            XCTAssertThrowsError(try StrategyChoice(name: name, depth: depth)) { error in
                XCTAssertEqual("\(error)", message)
            }
        }
    }

    // MARK: Schedule text form

    func testScheduleTextFormRoundTrips() throws {
        let points: [SchedulePoint] = [.start, .operation, .acquire, .wait, .release, .finish]
            + NamedSchedulePoint.allCases.map(SchedulePoint.init)
        let workers = [0, 0, 0, 1, 2, 2, 0, 3, 3, 3, 3, 1, 1] + [Int](repeating: 1, count: points.count - 13)
        let schedule = Schedule(workers: workers, points: points)
        XCTAssertEqual(schedule.workersText, "0*3 1 2*2 0 3*4 1*\(points.count - 11)")
        XCTAssertTrue(schedule.pointsText.hasPrefix("soawrf"), schedule.pointsText)
        XCTAssertEqual(Set(schedule.pointsText).count, points.count, "every point has its own code")
        XCTAssertTrue(schedule.pointsText.dropFirst(6).allSatisfy(\.isUppercase), "GuardCore points have letters: \(schedule.pointsText)")
        XCTAssertEqual(schedule.switches, 5)
        let parsed = try Schedule(workersText: schedule.workersText, pointsText: schedule.pointsText)
        XCTAssertEqual(parsed, schedule)
        XCTAssertEqual(try Schedule(workersText: "", pointsText: ""), Schedule())
        for point in points { XCTAssertEqual(SchedulePoint(code: point.code), point) }
        XCTAssertEqual(SchedulePoint(code: "H")?.name, "guardBeforeHandler")
        XCTAssertEqual(SchedulePoint(code: "C")?.name, "runtimeBeforeCallback")
    }

    func testScheduleTextErrorsSayWhatIsWrong() {
        let cases: [(String, String, String)] = [
            ("0 x", "so", "\"x\" is not a worker number or a run like \"2*5\""),
            ("0 -1", "so", "\"-1\" is not a worker number or a run like \"2*5\""),
            ("0*0", "", "\"0*0\" has a run length that is not a positive whole number"),
            ("1*", "s", "\"1*\" has a run length that is not a positive whole number"),
            ("1*2*3", "ss", "\"1*2*3\" is not a worker number or a run like \"2*5\""),
            ("0 1", "s?", "step 1 has the point code \"?\", which names no point"),
            ("0 1", "s", "it lists 2 chosen workers but 1 points"),
            ("0*100000001", "", "the schedule is longer than 100000000 steps"),
        ]
        for (workers, points, message) in cases {
            XCTAssertThrowsError(try Schedule(workersText: workers, pointsText: points), "\(workers) / \(points)") { error in
                XCTAssertEqual("\(error)", message)
            }
        }
    }
}
