@testable import FaultInjector
import GuardCore
import XCTest

final class ExplorerDebugTests: XCTestCase {
    func search(_ workers: [[String]], target: any SystemUnderTest, reduction: Bool = true, bound: Int? = nil) -> (ExplorationOutcome, [[UInt64]: ClassVerdict]) {
        var settings = ExplorationSettings()
        settings.reduction = reduction
        settings.preemptionBound = bound
        settings.stopsAtFirstViolation = false
        let explorer = Explorer(scenario: GuardScenarios.make(workers), target: target, settings: settings)
        var search = ExplorationSearch(explorer: explorer, progress: { _ in })
        let outcome = search.run { explorer.execute($0) }
        print("\(target.name) red=\(reduction) bound=\(String(describing: bound)): \(outcome.summary) blocked=\(outcome.sleepBlocked) \(outcome.seconds)s failing=\(search.verdicts.values.filter { !$0.signature.isEmpty }.map(\.signature))")
        return (outcome, search.verdicts)
    }

    func testDebugBrute() {
        let s1 = [["observe c0 o0 k0 [initial,new]", "mutate o0 k0", "unobserve c0 o0 k0"], ["unobserve c0 o0 k0", "mutate o0 k0", "observe c0 o0 k0 []"]]
        let s2 = [["observe c0 o0 k0 []", "release-observer c0", "mutate o0 k0"], ["mutate o0 k0", "unobserve-all c0", "observe c0 o0 k0 [initial,new]"]]
        for s in [s1, s2] {
            for target in [GuardScenarios.guardTarget, PlantedBugTarget(name: "bug-delivery-check-removed")!, PlantedBugTarget(name: "bug-dedup-removed")!] as [any SystemUnderTest] {
                let (full, fullV) = search(s, target: target)
                let (bounded, boundedV) = search(s, target: target, bound: 2)
                let (brute, bruteV) = search(s, target: target, reduction: false, bound: 2)
                let missing = bruteV.filter { boundedV[$0.key] == nil }
                print("  bounded==brute: \(boundedV == bruteV) (brute not in bounded: \(missing.count) \(missing.values.map(\.signature))) brute⊆full: \(bruteV.allSatisfy { fullV[$0.key] == $0.value }) answers \(full.answer) \(bounded.answer) \(brute.answer)")
            }
        }
    }
}
