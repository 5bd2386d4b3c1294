import Foundation
import GuardCore
import XCTest

/// `RuntimeMonitor.withMisusePolicy` scopes that nest and overlap, on one thread and on several: the newest open
/// scope's policy is in force, and the process-wide policy is back once none is open.
final class MisusePolicyScopeTests: XCTestCase {
    private var original = MisusePolicy.trap

    override func setUp() {
        super.setUp()
        original = RuntimeMonitor.misusePolicy
    }

    override func tearDown() {
        RuntimeMonitor.misusePolicy = original
        RuntimeMonitor.resetMisuseRecords()
        super.tearDown()
    }

    /// Two threads' scopes that overlap as A begins, B begins, A ends, B ends. B's body, waiting for A's end, is given
    /// the first scope's end in `aEnds` and reports the policy it sees then.
    private func overlap(
        a: MisusePolicy, b: MisusePolicy, endingFirst: Character
    ) -> (seenByTheSurvivor: MisusePolicy?, after: MisusePolicy) {
        let aBegan = DispatchSemaphore(value: 0)
        let bBegan = DispatchSemaphore(value: 0)
        let firstEnded = DispatchSemaphore(value: 0)
        let bothEnded = DispatchGroup()
        let seen = TestBox<MisusePolicy?>(nil)
        bothEnded.enter()
        Thread {
            RuntimeMonitor.withMisusePolicy(a) {
                aBegan.signal()
                bBegan.wait()
                if endingFirst == "B" {
                    firstEnded.wait()
                    seen.set(RuntimeMonitor.misusePolicy)
                }
            }
            if endingFirst == "A" { firstEnded.signal() }
            bothEnded.leave()
        }.start()
        bothEnded.enter()
        Thread {
            aBegan.wait()
            RuntimeMonitor.withMisusePolicy(b) {
                bBegan.signal()
                if endingFirst == "A" {
                    firstEnded.wait()
                    seen.set(RuntimeMonitor.misusePolicy)
                }
            }
            if endingFirst == "B" { firstEnded.signal() }
            bothEnded.leave()
        }.start()
        XCTAssertEqual(bothEnded.wait(timeout: .now() + 10), .success, "the two scopes did not end")
        return (seen.get(), RuntimeMonitor.misusePolicy)
    }

    /// A begins, B begins, A ends: B's policy stays in force for the rest of B's body (A's end does not put back
    /// what A found), and after B the process-wide policy is back.
    func testTheOlderScopeEndingFirstLeavesTheNewerInForceAndThenTheOriginal() {
        let (seen, after) = overlap(a: .report, b: .log, endingFirst: "A")
        XCTAssertEqual(seen, .log, "B's policy was not in force for the whole of B's body")
        XCTAssertEqual(after, original, "the process was left in a scope's policy")
    }

    /// A begins, B begins, B ends: A's policy is in force again for the rest of A's body, then the original.
    func testTheNewerScopeEndingFirstGivesTheOlderItsPolicyBack() {
        let (seen, after) = overlap(a: .report, b: .log, endingFirst: "B")
        XCTAssertEqual(seen, .report)
        XCTAssertEqual(after, original)
    }

    /// The process-wide policy (not the default) is what comes back, whichever way the scopes overlapped.
    func testAProcessWidePolicySetBeforeComesBack() {
        RuntimeMonitor.misusePolicy = .log
        XCTAssertEqual(overlap(a: .report, b: .trap, endingFirst: "A").after, .log)
        XCTAssertEqual(overlap(a: .trap, b: .report, endingFirst: "B").after, .log)
    }

    /// Setting the policy inside a scope changes that scope's policy until it ends; the policy from before the scope
    /// comes back then.
    func testSettingThePolicyInsideAScopeLastsUntilTheScopeEnds() {
        RuntimeMonitor.misusePolicy = .report
        RuntimeMonitor.withMisusePolicy(.log) {
            RuntimeMonitor.misusePolicy = .trap
            XCTAssertEqual(RuntimeMonitor.misusePolicy, .trap)
            RuntimeMonitor.withMisusePolicy(.report) {
                XCTAssertEqual(RuntimeMonitor.misusePolicy, .report)
            }
            XCTAssertEqual(RuntimeMonitor.misusePolicy, .trap)
        }
        XCTAssertEqual(RuntimeMonitor.misusePolicy, .report)
    }

    /// A scope's policy is process-wide: a misuse on another thread while it is open follows it.
    func testAScopesPolicyGovernsMisusesOnOtherThreads() {
        let person = Person()
        let recorder = Recorder()
        RuntimeMonitor.resetMisuseRecords()
        RuntimeMonitor.withMisusePolicy(.report) {
            _ = onAnotherThread { person.removeObserver(recorder, forKeyPath: "age") }
        }
        XCTAssertEqual(RuntimeMonitor.misuseCount(of: .notRegistered), 1)
        XCTAssertEqual(RuntimeMonitor.reportedMisuses.map(\.kind), [.notRegistered], "recorded under .report")
    }

    /// Many threads open and close `.report` scopes at once, nested and not, over a process-wide `.log`, while
    /// misuses happen under them: every misuse is counted and recorded once (under `.report`, never `.log` or a trap),
    /// and `.log` is back at the end.
    func testManyOverlappingScopesOnManyThreadsLeaveTheOriginalPolicy() {
        RuntimeMonitor.misusePolicy = .log
        RuntimeMonitor.resetMisuseRecords()
        let person = Person()
        let start = DispatchSemaphore(value: 0)
        let group = DispatchGroup()
        let workers = 8
        let rounds = 200
        for worker in 0..<workers {
            group.enter()
            DispatchQueue(label: "kvoguard.tests.policy-scopes.\(worker)").async {
                let recorder = Recorder()
                start.wait()
                for round in 0..<rounds {
                    RuntimeMonitor.withMisusePolicy(.report) {
                        if round.isMultiple(of: 3) {
                            RuntimeMonitor.withMisusePolicy(.report) {
                                person.removeObserver(recorder, forKeyPath: "age")
                            }
                        } else {
                            person.removeObserver(recorder, forKeyPath: "age")
                        }
                    }
                }
                group.leave()
            }
        }
        for _ in 0..<workers { start.signal() }
        XCTAssertEqual(group.wait(timeout: .now() + 60), .success)
        XCTAssertEqual(RuntimeMonitor.misuseCount(of: .notRegistered), workers * rounds)
        XCTAssertEqual(RuntimeMonitor.reportedMisuses.count, workers * rounds)
        XCTAssertEqual(RuntimeMonitor.misusePolicy, .log, "the policy from before every scope is back")
    }

    /// Misuses from several queues while another thread switches the process-wide policy between `.report` and
    /// `.log` with no scope open: each is counted and recorded once, and none traps.
    func testPolicySwitchedWhileMisusesHappen() {
        RuntimeMonitor.misusePolicy = .report
        RuntimeMonitor.resetMisuseRecords()
        let stop = TestBox(false)
        let switcherDone = DispatchSemaphore(value: 0)
        Thread {
            var flip = false
            while !stop.get() {
                flip.toggle()
                RuntimeMonitor.misusePolicy = flip ? .log : .report
            }
            RuntimeMonitor.misusePolicy = .report
            switcherDone.signal()
        }.start()
        let person = Person()
        let group = DispatchGroup()
        for index in 0..<6 {
            group.enter()
            DispatchQueue(label: "kvoguard.tests.policy-switch.\(index)").async {
                let recorder = Recorder()
                for _ in 0..<100 { person.removeObserver(recorder, forKeyPath: "age") }
                group.leave()
            }
        }
        XCTAssertEqual(group.wait(timeout: .now() + 60), .success)
        stop.set(true)
        switcherDone.wait()
        XCTAssertEqual(RuntimeMonitor.misuseCount, 600)
        XCTAssertEqual(RuntimeMonitor.misuseCount(of: .notRegistered), 600)
        XCTAssertEqual(RuntimeMonitor.reportedMisuses.count, 600)
    }
}
