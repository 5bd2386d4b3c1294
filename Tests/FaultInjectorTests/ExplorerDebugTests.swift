@testable import FaultInjector
import XCTest

final class ExplorerDebugTests: XCTestCase {
    func testDebugK1() {
        let explorer = Explorer(scenario: ToyScenarios.lockSteps(workers: 2), target: ToyTarget(.shared(steps: 1)))
        var search = ExplorationSearch(explorer: explorer, progress: { _ in })
        let outcome = search.run { request in
            let report = explorer.execute(request)
            print("REQ prefix=\(request.prefix) sleep=\(request.sleep.entries.map { "\($0.worker)@\($0.depth):\($0.accesses)" })")
            for (i, s) in report.execution.steps.enumerated() {
                print("  \(i) w\(s.worker) cur\(s.current) \(Character(Unicode.Scalar(s.point))) run\(s.runnable) \(s.accesses.map { "\($0.object)\($0.writes ? "W" : "R")" })")
            }
            print("  blocked=\(String(describing: report.execution.sleepBlockedAt)) words=\(report.execution.objectWords) canon=\(report.canonicalWorkers)")
            return report
        }
        print(outcome.summary, outcome.sleepBlocked)
    }
}
