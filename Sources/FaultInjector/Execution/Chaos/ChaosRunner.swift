import Dispatch
import Foundation
import GuardCore

/// Runs a scenario on real threads: one serial Dispatch queue per worker (more queues than cores), all released
/// from one start gate (as many as Dispatch runs at once; the rest start as threads come free), with injected
/// pauses between operations and at GuardCore's schedule points; a watchdog turns a hang into a reported deadlock. Then it releases everything and returns the recording; it does not
/// judge it (``Oracle`` does).
///
/// The same scenario replays the same operations but not the same interleaving; a failure found here reproduces
/// with a rate, not always (see ``Replayer``). ``ControlledRunner`` replays exactly.
///
/// Runs use the process-wide misuse policy and counters, so runs in one process are serialized.
public struct ChaosRunner: ScenarioRunner {
    /// Seconds without any worker progress after which the run is declared deadlocked.
    public var deadlockTimeout: Double = 20

    /// Creates a runner.
    public init() {}

    /// Seconds without a new worker at the start gate after which it opens for those that arrived.
    static let arrivalSettling = 0.2

    /// Where the round's value-sequence consumers (``StreamPlan``) get their values: GuardCore's
    /// `values(of:bufferingNewest:)` (a test may plant a variation).
    var valueSource = ValueSource.guardCore

    /// Runs `scenario` against `target` and records what happened.
    public func run(_ scenario: Scenario, against target: any SystemUnderTest) -> RunRecording {
        RunEnvironment.exclusively { execute(scenario, against: target) }
    }

    private func execute(_ scenario: Scenario, against target: any SystemUnderTest) -> RunRecording {
        // First uses of GuardCore's caches read values (a computed key's existence is learned by reading it); doing
        // them here, on one thread, keeps those reads from racing with the workers' changes.
        RuntimeWarmUp.ensure()
        let baseline = RunEnvironment.Baseline()
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
        let streams = ValueStreams(plans: StreamPlan.plans(for: scenario), world: world, source: valueSource)
        startWorkers(scenario, workers, world: world, gate: gate, group: group)
        // More queues than Dispatch runs at once start as threads come free (see ``StartGate``).
        let arrived = gate.waitForArrivals(workers.count, settle: Self.arrivalSettling, timeout: deadlockTimeout)
        let start = MonotonicClock.now
        gate.open()
        streams.start()
        let stuck =
            arrived > 0
            ? watch(group, workers: workers)
            : "no worker queue started within \(String(format: "%g", deadlockTimeout)) s (Dispatch gave none of them a "
                + "thread: a limit of this process, not of the system under test)"
        let seconds = Double(MonotonicClock.now - start) / 1e9
        SchedulePoints.uninstall()

        if let stuck {
            // Workers are blocked for good; keep everything they use alive and report what they were doing.
            _ = Unmanaged.passRetained(world)
            streams.cancelAll()
            var facts = RunFacts()
            facts.deadlock = describeStuck(workers, scenario: scenario, reason: stuck)
            return RunRecording(
                scenario: scenario, targetName: target.name, promisesGuardSemantics: target.promisesGuardSemantics,
                history: History(), facts: facts,
                operationsPerformed: workers.reduce(0) { $0 + $1.progress.completedOperations }, deliveries: 0,
                faultsInjected: 0, seconds: seconds, abandoned: true,
                reportsDiagnostics: target.reportsDiagnostics)
        }

        var history = History()
        history.operations = workers.flatMap(\.operations).sorted { $0.call < $1.call }
        history.deliveries = (workers.flatMap(\.deliveries) + world.deliveriesOffWorkers).sorted { $0.time < $1.time }
        history.diagnostics = (workers.flatMap(\.diagnostics) + world.diagnostics.recordedOffWorkers)
            .sorted { $0.time < $1.time }
        world.addFacts(to: &history, objectDeinits: workers.flatMap(\.objectDeinits))
        world.releaseEverything()
        history.bulkReleases = workers.flatMap(\.bulkReleases) + world.bulkReleasesOffWorkers
        // Every object is released now: each value sequence must end (after what it buffered).
        history.streams = streams.finish(stallTimeout: deadlockTimeout)
        var facts = baseline.facts(after: world)
        facts.unroutedNotifications = world.unroutedNotifications
        // Facts recorded during the release (controller ends, observer deinits) matter for leak checks only.
        var recording = RunRecording(
            scenario: scenario, targetName: target.name, promisesGuardSemantics: target.promisesGuardSemantics,
            history: history, facts: facts,
            operationsPerformed: history.operations.count, deliveries: history.deliveries.count,
            faultsInjected: workers.reduce(0) { $0 + $1.faults.injected }, seconds: seconds, abandoned: false,
            reportsDiagnostics: target.reportsDiagnostics)
        recording.dropsWeakRegistrationsInObjectDeinit = target.dropsWeakRegistrationsInObjectDeinit
        recording.releasesInRegistrationOrder = target.releasesInRegistrationOrder
        return recording
    }

    /// One queue per worker: it waits at `gate`, then performs its operations with injected pauses.
    private func startWorkers(
        _ scenario: Scenario, _ workers: [WorkerContext], world: StressWorld, gate: StartGate, group: DispatchGroup
    ) {
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
    }

    /// Waits for the workers; returns `nil` when they finished, or a reason when they stopped making progress.
    private func watch(_ group: DispatchGroup, workers: [WorkerContext]) -> String? {
        var lastProgress = -1
        var lastChange = MonotonicClock.now
        while group.wait(timeout: .now() + .milliseconds(200)) == .timedOut {
            let progress = workers.reduce(0) { $0 + $1.progress.completedOperations }
            RoundProgress.note(progress)
            let now = MonotonicClock.now
            if progress != lastProgress {
                lastProgress = progress
                lastChange = now
            } else if Double(now - lastChange) / 1e9 > deadlockTimeout {
                return "no worker finished an operation for \(String(format: "%g", deadlockTimeout)) s"
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
        guard !stuck.isEmpty else { return "\(reason) (no worker was inside an operation)" }
        let shown = stuck.prefix(8).joined(separator: "; ")
        let more = stuck.count > 8 ? "; and \(stuck.count - 8) more" : ""
        return "\(reason): \(stuck.count) worker(s) stuck: \(shown)\(more)"
    }
}
