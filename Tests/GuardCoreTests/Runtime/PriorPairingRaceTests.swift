// Prior notifications and their changes across threads: a dotted key path's middle object replaced, and a dependent
// key's relay stopped and another started, while other threads change the leaf.
import Foundation
@testable import GuardCore
import XCTest

final class PriorPairingRaceTests: XCTestCase {
    /// Records, per delivering thread, whether each notification was a prior one.
    private final class PairingRecorder: KeyValueObserver, @unchecked Sendable {
        private let lock = NSLock()
        private var byThread: [UInt64: [Bool]] = [:]

        func observeValue(
            forKeyPath keyPath: String, of object: KVOObject, change: KeyValueChange, context: UnsafeMutableRawPointer?
        ) {
            let thread = CurrentThread.identifier
            lock.withLock { byThread[thread, default: []].append(change.isPrior) }
        }

        /// What was heard so far, per thread.
        var heard: [UInt64: [Bool]] { lock.withLock { byThread } }

        /// The threads on which a prior notification never got its change, or a change came without its prior
        /// (changes nest per thread, innermost first), with what that thread heard.
        func unpairedThreads() -> [UInt64: String] {
            Self.unpaired(in: heard)
        }

        /// ``unpairedThreads()`` of notifications heard up to some moment.
        static func unpaired(in byThread: [UInt64: [Bool]]) -> [UInt64: String] {
            byThread.compactMapValues { heard -> String? in
                var open = 0
                for isPrior in heard {
                    if isPrior {
                        open += 1
                    } else if open > 0 {
                        open -= 1
                    } else {
                        return "a change without its prior after \(heard.count) notifications"
                    }
                }
                return open == 0 ? nil : "\(open) prior notification(s) without a change"
            }
        }
    }

    /// Starts `workers` queues behind a gate, runs `body(worker)` on each, and waits for all of them.
    private func race(workers: Int, _ body: @escaping @Sendable (Int) -> Void) {
        let ready = DispatchGroup()
        let done = DispatchGroup()
        let gate = DispatchSemaphore(value: 0)
        for worker in 0..<workers {
            ready.enter()
            done.enter()
            DispatchQueue(label: "kvoguard.tests.prior-race-\(worker)").async {
                ready.leave()
                gate.wait()
                body(worker)
                done.leave()
            }
        }
        XCTAssertEqual(ready.wait(timeout: .now() + 60), .success, "every worker reached the gate")
        for _ in 0..<workers { gate.signal() }
        XCTAssertEqual(done.wait(timeout: .now() + 300), .success, "every worker finished")
    }

    /// KeyPathForwarder's doc: "every prior notification an observer gets is followed by its change". Eight queues:
    /// two set the leaf of one middle object each, six re-point the root (a lock-backed middle key announced by hand,
    /// so concurrent sets are no data race) at one middle object or the other, so forwarders are detached while they
    /// relay prior notifications on other threads. Each thread's notifications to an observer registered throughout
    /// come in nested prior / change pairs.
    func testReplacingTheMiddleObjectFromOtherThreadsLeavesNoPriorWithoutItsChange() {
        let root = LockedMiddleRoot()
        let nodes = [ChainNode(), ChainNode()]
        root.setMiddle(nodes[0])
        let recorder = PairingRecorder()
        let iterations = 4_000
        assertNoMisuse {
            // `.prior` only: no value is read along the chain while another thread sets it.
            root.addObserver(recorder, forKeyPath: "middle.leaf", options: [.prior])
            race(workers: 8) { worker in
                for iteration in 0..<iterations {
                    if worker < nodes.count {
                        nodes[worker].leaf = iteration
                    } else {
                        root.setMiddle(nodes[(iteration + worker) % 2])
                    }
                }
            }
            root.removeObserver(recorder, forKeyPath: "middle.leaf")
        }
        XCTAssertEqual(recorder.unpairedThreads(), [:])
        XCTAssertEqual(nodes[0].observationCount + nodes[1].observationCount, 0, "a forwarder stayed")
    }

    /// DependencyRelay's doc: "Every prior notification an observer gets is followed by its change: a relay stopped
    /// while a change it began is open stays registered until the last such change has ended". Four pairs of
    /// queues, each on its own portfolio: one sets the balance over and over, the other makes its observer of
    /// `summary` leave (which stops the relay, maybe in the middle of a change) and a new one arrive. Then, at a moment
    /// no set is under way, every prior notification the new observer heard so far has had its change.
    func testAnObserverArrivingWhileAnotherThreadStopsTheRelayGetsTheChangeOfEveryPrior() {
        let rounds = 400
        let pairs = 4
        let portfolios = (0..<pairs).map { _ in Portfolio() }
        let setLocks = (0..<pairs).map { _ in NSLock() }
        let stops = (0..<pairs).map { _ in DispatchSemaphore(value: 0) }
        let problems = PriorPairingLines()
        assertNoMisuse {
            for portfolio in portfolios { portfolio.account = Account() }
            race(workers: 2 * pairs) { worker in
                let pair = worker / 2
                let portfolio = portfolios[pair]
                if worker % 2 == 0 {
                    var value = 0
                    while stops[pair].wait(timeout: .now()) == .timedOut {
                        value += 1
                        setLocks[pair].withLock { portfolio.account?.balance = value }
                    }
                    return
                }
                var current = PairingRecorder()
                portfolio.addObserver(current, forKeyPath: "summary", options: [.prior])
                for round in 0..<rounds {
                    let next = PairingRecorder()
                    portfolio.removeObserver(current, forKeyPath: "summary")
                    portfolio.addObserver(next, forKeyPath: "summary", options: [.prior])
                    current = next
                    // No set under way: every prior notification heard so far has had its change.
                    let heard = setLocks[pair].withLock { current.heard }
                    for (thread, problem) in PairingRecorder.unpaired(in: heard) {
                        problems.append("portfolio \(pair), round \(round), thread \(thread): \(problem)")
                    }
                }
                portfolio.removeObserver(current, forKeyPath: "summary")
                stops[pair].signal()
            }
        }
        XCTAssertEqual(problems.items, [])
        for portfolio in portfolios {
            XCTAssertEqual(portfolio.observationCount, 0, "a relay stayed registered")
            XCTAssertEqual(portfolio.account?.observationCount, 0, "a relay's forwarder stayed registered")
        }
    }
}
