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
