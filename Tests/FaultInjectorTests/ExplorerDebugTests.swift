@testable import FaultInjector
import GuardCore
import XCTest

final class ExplorerDebugTests: XCTestCase {
    func collect(_ workers: [[String]], target: any SystemUnderTest, reduction: Bool = true, bound: Int? = nil, sleep: Bool = true) -> [[UInt64]: ExecutionReport] {
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
        print(outcome.summary)
        return reports
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

    func testDebugMissing() {
        let s2 = [["observe c0 o0 k0 []", "release-observer c0", "mutate o0 k0"], ["mutate o0 k0", "unobserve-all c0", "observe c0 o0 k0 [initial,new]"]]
        let full = collect(s2, target: GuardScenarios.guardTarget, sleep: false)
        let brute = collect(s2, target: GuardScenarios.guardTarget, reduction: false, bound: 2)
        var shown = 0
        for (key, r) in brute where full[key] == nil || full[key]!.canonicalDigest != r.canonicalDigest {
            print("MISSING (in full: \(full[key] != nil))")
            dump(r)
            if let f = full[key] { print("FULL"); dump(f) }
            shown += 1
            if shown == 2 { break }
        }
        print("missing count \(brute.keys.filter { full[$0] == nil }.count) differing \(brute.filter { full[$0.key] != nil && full[$0.key]!.canonicalDigest != $0.value.canonicalDigest }.count)")
    }
}
