import Dispatch
import Foundation
import GuardCore

/// Runs a scenario on real threads: one serial Dispatch queue per worker (more queues than cores), all released
/// from one start gate, with injected pauses between operations and at GuardCore's schedule points; a watchdog
/// turns a hang into a reported deadlock. Then it releases everything and hands the recorded history to the
/// ``Oracle``.
///
/// The same scenario replays the same operations but not the same interleaving; a failure found here reproduces
/// with a rate, not always (see ``Replayer``).
///
/// Runs use the process-wide misuse policy and counters, so runs in one process are serialized.
public struct ChaosRunner: Sendable {
    /// Seconds without any worker progress after which the run is declared deadlocked.
    public var deadlockTimeout: Double = 20

    /// Creates a runner.
    public init() {}

    private static let exclusive = Lock()

    /// Runs `scenario` against `target` and evaluates it.
    public func run(_ scenario: Scenario, against target: any SystemUnderTest) -> RunResult {
        Self.exclusive.lock()
        defer { Self.exclusive.unlock() }
        let previousPolicy = RuntimeMonitor.misusePolicy
        RuntimeMonitor.misusePolicy = .report
        defer { RuntimeMonitor.misusePolicy = previousPolicy }
        let misusesBefore = RuntimeMonitor.misuseCountsByKind
        let observancesBefore = RuntimeMonitor.liveObservanceCount

        let configuration = scenario.configuration
        let world = StressWorld(configuration: configuration, target: target)
        let workers = (0..<configuration.workers).map { index in
            WorkerContext(
                index: index,
                faults: FaultInjection(profile: configuration.faults, seed: scenario.seed, worker: index))
        }
        if configuration.faults.isEnabled, configuration.faults.insideOperations {
            SchedulePoints.install(atPoints: { _ in WorkerContext.current?.faults.maybePause() })
        }
        let gate = StartGate()
        let group = DispatchGroup()
        for worker in workers {
            let operations = scenario.operations[worker.index]
            let queue = DispatchQueue(label: "guard-stress.worker-\(worker.index)")
            group.enter()
            queue.async {
                WorkerContext.setCurrent(worker)
                gate.arriveAndWait()
                for (index, operation) in operations.enumerated() {
                    worker.progress.begin(index)
                    worker.faults.maybePause()
                    world.perform(operation, index: index, worker: worker)
                    worker.progress.finish()
                }
                WorkerContext.setCurrent(nil)
                group.leave()
            }
        }
        let started = gate.waitForArrivals(workers.count, timeout: deadlockTimeout)
        let start = MonotonicClock.now
        gate.open()
        let stuck = started ? watch(group, workers: workers) : "the workers never all reached the start gate"
        let seconds = Double(MonotonicClock.now - start) / 1e9
        SchedulePoints.uninstall()

        if let stuck {
            // Workers are blocked for good; keep everything they use alive and report what they were doing.
            _ = Unmanaged.passRetained(world)
            let description = describeStuck(workers, scenario: scenario, reason: stuck)
            var facts = Oracle.Facts()
            facts.deadlock = description
            let report = Oracle(checksGuardSemantics: target.promisesGuardSemantics).evaluate(History(), facts: facts)
            return RunResult(
                scenario: scenario, targetName: target.name, report: report, history: History(),
                operationsPerformed: workers.reduce(0) { $0 + $1.progress.completedOperations }, deliveries: 0,
                faultsInjected: 0, seconds: seconds, abandoned: true)
        }

        var history = History()
        history.operations = workers.flatMap(\.operations).sorted { $0.call < $1.call }
        history.deliveries = (workers.flatMap(\.deliveries) + world.deliveriesOffWorkers).sorted { $0.time < $1.time }
        world.addFacts(to: &history)
        world.releaseEverything()
        // Facts recorded during the release (controller ends, observer deinits) matter for leak checks only.
        var facts = Oracle.Facts()
        facts.survivors = world.survivors()
        facts.liveObservancesAfterTeardown = RuntimeMonitor.liveObservanceCount - observancesBefore
        let misusesAfter = RuntimeMonitor.misuseCountsByKind
        for kind in KVOMisuse.Kind.allCases {
            let delta = misusesAfter[kind, default: 0] - misusesBefore[kind, default: 0]
            if delta > 0 { facts.misuses[kind] = delta }
        }
        let report = Oracle(checksGuardSemantics: target.promisesGuardSemantics).evaluate(history, facts: facts)
        return RunResult(
            scenario: scenario, targetName: target.name, report: report, history: history,
            operationsPerformed: history.operations.count, deliveries: history.deliveries.count,
            faultsInjected: workers.reduce(0) { $0 + $1.faults.injected }, seconds: seconds, abandoned: false)
    }

    /// Waits for the workers; returns `nil` when they finished, or a reason when they stopped making progress.
    private func watch(_ group: DispatchGroup, workers: [WorkerContext]) -> String? {
        var lastProgress = -1
        var lastChange = MonotonicClock.now
        while group.wait(timeout: .now() + .milliseconds(200)) == .timedOut {
            let progress = workers.reduce(0) { $0 + $1.progress.completedOperations }
            let now = MonotonicClock.now
            if progress != lastProgress {
                lastProgress = progress
                lastChange = now
            } else if Double(now - lastChange) / 1e9 > deadlockTimeout {
                return "no worker finished an operation for \(Int(deadlockTimeout)) s"
            }
        }
        return nil
    }

    private func describeStuck(_ workers: [WorkerContext], scenario: Scenario, reason: String) -> String {
        let stuck = workers.compactMap { worker -> String? in
            let index = worker.progress.currentIndex
            guard index >= 0, index < scenario.operations[worker.index].count else { return nil }
            return "worker \(worker.index) at op \(index) (\(scenario.operations[worker.index][index]))"
        }
        let shown = stuck.prefix(8).joined(separator: "; ")
        let more = stuck.count > 8 ? "; and \(stuck.count - 8) more" : ""
        return "\(reason): \(stuck.count) worker(s) stuck: \(shown)\(more)"
    }
}
