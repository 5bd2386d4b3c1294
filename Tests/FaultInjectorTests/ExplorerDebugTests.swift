@testable import FaultInjector
import GuardCore
import XCTest

final class ExplorerDebugTests: XCTestCase {
    func collect(_ workers: [[String]], target: any SystemUnderTest, reduction: Bool = true, bound: Int? = nil, sleep: Bool = true) -> ([[UInt64]: ExecutionReport], ExplorationOutcome) {
        var settings = ExplorationSettings()
        settings.keepsSleepSets = sleep
        settings.reduction = reduction
        settings.preemptionBound = bound
        settings.stopsAtFirstViolation = false
        let explorer = Explorer(scenario: GuardScenarios.make(workers), target: target, settings: settings)
        var search = ExplorationSearch(explorer: explorer, progress: { _ in })
        var reports: [[UInt64]: ExecutionReport] = [:]
        let outcome = search.run { request in
            let r = explorer.execute(request)
            if r.execution.sleepBlockedAt == nil, reports[r.classHash] == nil { reports[r.classHash] = r }
            return r
        }
        return (reports, outcome)
    }

    func dump(_ r: ExecutionReport) {
        print("schedule \(r.scheduleWorkers) canonical \(Schedule(workers: r.canonicalWorkers, points: r.canonicalWorkers.map { _ in .operation }).workersText) digest \(r.canonicalDigest)")
        let ex = r.execution
        var perWorker = [0, 0]
        for (i, st) in ex.steps.enumerated() {
            print("  \(i) w\(st.worker)#\(perWorker[st.worker]) \(Character(Unicode.Scalar(st.point))) run\(st.runnable) " + st.accesses.map { "\($0.object):\(ex.objectWords[Int($0.object)])\(ex.objectNames[Int($0.object)] >= 0 ? "c\(ex.objectNames[Int($0.object)] >> 40):\(ex.objectNames[Int($0.object)] & 0xFFFF)" : "")\($0.writes ? "W" : "R")\($0.releaseOnly ? "r" : "")" }.joined(separator: " "))
            perWorker[st.worker] += 1
        }
    }

    func testDebugSmall() {
        let ops = ["observe c0 o0 k0 []", "observe c0 o0 k0 [initial,new]", "release-observer c0", "mutate o0 k0", "unobserve-all c0", "unobserve c0 o0 k0"]
        for a in ops { for b in ops {
            for s in [[[a], [b]], [[a, "release-observer c0"], [b]]] {
            let (full, fo) = collect(s, target: GuardScenarios.guardTarget)
            let (brute, bo) = collect(s, target: GuardScenarios.guardTarget, reduction: false, bound: 2)
            let missing = brute.keys.filter { full[$0] == nil }.count
            print("\(missing > 0 || fo.failingClasses > 0 ? "MISMATCH" : "ok") \(s): full \(fo.summary) brute \(bo.summary) missing \(missing)")
            }
        } }
        print("done")
    }
}
