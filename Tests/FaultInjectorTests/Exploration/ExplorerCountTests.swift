@testable import FaultInjector
import XCTest

/// The explorer's counts on toy targets whose classes of interleavings are known in closed form.
final class ExplorerCountTests: XCTestCase {
    private func explore(
        _ scenario: Scenario, _ target: ToyTarget, reduction: Bool = true, bound: Int? = nil
    ) -> ExplorationOutcome {
        var settings = ExplorationSettings()
        settings.reduction = reduction
        settings.preemptionBound = bound
        return Explorer(scenario: scenario, target: target, settings: settings).explore()
    }

    /// Two workers taking k locks each on disjoint objects: one class.
    func testDisjointObjectsMakeOneClass() {
        for steps in [1, 3] {
            let outcome = explore(ToyScenarios.lockSteps(workers: 2), ToyTarget(.disjoint(steps: steps)))
            XCTAssertEqual(outcome.answer, .complete, outcome.summary)
            XCTAssertEqual(outcome.classes, 1, "k = \(steps): \(outcome.summary)")
        }
    }

    /// Two workers taking one shared lock k times each: C(2k, k) classes (20 for k = 3, 252 for k = 5).
    func testOneSharedObjectMakesBinomialClasses() {
        for (steps, expected) in [(1, 2), (3, 20), (5, 252)] {
            let outcome = explore(ToyScenarios.lockSteps(workers: 2), ToyTarget(.shared(steps: steps)))
            XCTAssertEqual(outcome.answer, .complete, outcome.summary)
            XCTAssertEqual(outcome.classes, expected, "k = \(steps): \(outcome.summary)")
            print("k = \(steps): \(outcome.summary)")
        }
    }

    /// One writer and N readers of one word: 2^N classes (each reader reads before or after the write).
    func testOneWriterAndReadersMakePowerOfTwoClasses() {
        for readers in 1...3 {
            let outcome = explore(ToyScenarios.writerAndReaders(readers: readers), ToyTarget(.writerAndReaders))
            XCTAssertEqual(outcome.answer, .complete, outcome.summary)
            XCTAssertEqual(outcome.classes, 1 << readers, "\(readers) readers: \(outcome.summary)")
            print("\(readers) readers: \(outcome.summary)")
        }
    }
}

/// Counts with a preemption bound, and the depth-first search without reduction.
final class ExplorerBoundedCountTests: XCTestCase {
    private func explore(_ target: ToyTarget, reduction: Bool, bound: Int?) -> ExplorationOutcome {
        var settings = ExplorationSettings()
        settings.reduction = reduction
        settings.preemptionBound = bound
        return Explorer(scenario: ToyScenarios.lockSteps(workers: 2), target: target, settings: settings).explore()
    }

    /// Interleavings of two sequences of n steps each with exactly r runs: 2·C(n−1, m−1)² for r = 2m, and
    /// 2·C(n−1, m)·C(n−1, m−1) for r = 2m + 1.
    static func interleavings(_ n: Int, runs r: Int) -> Int {
        let m = r / 2
        return r % 2 == 0 ? 2 * binomial(n - 1, m - 1) * binomial(n - 1, m - 1)
            : 2 * binomial(n - 1, m) * binomial(n - 1, m - 1)
    }

    static func binomial(_ n: Int, _ k: Int) -> Int {
        guard k >= 0, k <= n else { return 0 }
        var result = 1
        for i in 0..<k { result = result * (n - i) / (i + 1) }
        return result
    }

    /// Every switch of worker but the last preempts (the worker switched away from had steps left; before the last
    /// run, the other worker finished): an interleaving with r runs makes r − 2 preemptions, so the interleavings
    /// within K preemptions number Σ_{r=2}^{K+2} interleavings(n, r).
    static func withinBound(_ n: Int, _ bound: Int) -> Int {
        (2...(bound + 2)).reduce(0) { $0 + interleavings(n, runs: $1) }
    }

    /// Two workers taking one shared lock k times each: a class is the order of the 2k lock steps, and a class
    /// whose order has r runs needs r − 2 preemptions (the other steps touch nothing shared, so every switch can
    /// wait until a worker's next lock step, and the last one until the worker finished): within K preemptions,
    /// Σ_{r=2}^{K+2} interleavings(k, r) classes. k = 3: 6 (K = 1), 14 (K = 2); k = 5: 10, 42.
    func testPreemptionBoundedClassesFollowTheClosedForm() {
        XCTAssertEqual(Self.withinBound(3, 1), 6)
        XCTAssertEqual(Self.withinBound(3, 2), 14)
        XCTAssertEqual(Self.withinBound(5, 1), 10)
        XCTAssertEqual(Self.withinBound(5, 2), 42)
        for steps in [3, 5] {
            for bound in [1, 2] {
                let outcome = explore(ToyTarget(.shared(steps: steps)), reduction: true, bound: bound)
                XCTAssertEqual(outcome.answer, .completeUpToPreemptions(bound), outcome.summary)
                XCTAssertEqual(outcome.classes, Self.withinBound(steps, bound), "k = \(steps), K = \(bound): \(outcome.summary)")
                print("k = \(steps), K = \(bound): \(outcome.summary)")
            }
        }
    }

    /// Without reduction every interleaving runs once: a worker of the toy takes n = 2k + 6 scheduling steps (its
    /// start, its operation, the reads of its controller slot and its controller, k lock steps, the end), none of
    /// them blocking, so the interleavings within K preemptions number Σ_{r=2}^{K+2} interleavings(n, r), and all
    /// of them C(2n, n).
    func testDepthFirstSearchRunsEveryInterleaving() {
        let n = 8
        for bound in [0, 1, 2] {
            let outcome = explore(ToyTarget(.shared(steps: 1)), reduction: false, bound: bound)
            XCTAssertEqual(outcome.executions, Self.withinBound(n, bound), "K = \(bound): \(outcome.summary)")
            print("k = 1, K = \(bound), no reduction: \(outcome.summary)")
        }
        let all = explore(ToyTarget(.shared(steps: 1)), reduction: false, bound: nil)
        XCTAssertEqual(all.executions, Self.binomial(2 * n, n), all.summary)
        XCTAssertEqual(all.classes, 2, all.summary)
        print("k = 1, no reduction: \(all.summary) in \(all.seconds) s")
    }
}
