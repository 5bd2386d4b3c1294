import GuardCore

/// Runs a scenario one worker at a time: every worker has its own thread, but a cooperative scheduler lets only
/// one run, and switches only at schedule points (GuardCore's named points, every announced lock acquire and
/// release, and before each operation), where a ``SchedulingStrategy`` picks the next worker. Then it releases
/// everything and returns the recording; it does not judge it (``Oracle`` does).
///
/// The same scenario, strategy and seed give the same interleaving, the same schedule and the same history (times
/// are logical ticks), within a process and, with `SWIFT_DETERMINISTIC_HASHING=1`, across processes. Following a
/// recorded schedule (``replaying``) repeats a run exactly, or reports where it stopped matching.
///
/// A deadlock among announced locks (GuardCore's, and ``ScheduledLock``s in a system under test of your own) is
/// reported at once, naming each worker, its operation and the lock it waits for; a worker that blocks on something
/// the scheduler cannot see (a semaphore, a lock that does not announce itself, such as `NSLock`) is reported after
/// ``Settings/blockedTimeout``, with the workers paused inside an operation (one of which may hold that lock) and the
/// advice to take such locks as ``ScheduledLock``: the scheduler never switches on a timeout, so that a run stays
/// exactly replayable; a run longer than ``Settings/stepLimit`` steps is
/// reported and let run to its end uncontrolled. Deadlocked and blocked workers are abandoned, blocked for good.
///
/// Runs use the process-wide misuse policy and counters, so runs in one process are serialized.
public struct ControlledRunner: ScenarioRunner {
    /// How a controlled run is scheduled.
    public struct Settings: Sendable, Hashable {
        /// The strategy that picks the next worker.
        public var strategy = StrategyChoice.pct(depth: 3)
        /// The most schedule steps a run may take under control.
        public var stepLimit = 1_000_000
        /// The counted steps PCT spreads its change points over; `nil`: estimated from the scenario's size.
        public var expectedSteps: Int?
        /// Seconds a running worker may go without reaching a schedule point before it counts as blocked outside
        /// the scheduler's control.
        public var blockedTimeout = 2.0
        /// Whether to record the step-by-step ``ExecutionTrace`` (for explaining a run; costs memory).
        public var recordsTrace = false
        /// Whether to keep all worker threads on one CPU (Linux): only one runs at a time anyway, and hand-overs
        /// on one core are much cheaper. The interleaving is the scheduler's either way.
        public var pinsWorkersToOneCPU = true

        /// PCT depth 3, a million steps, two seconds, no trace.
        public init() {}

        /// The step limits a seed file or the command line may ask for.
        public static let stepLimits = 1...100_000_000

        /// The step limit for rounds of `configuration` when none is asked for: the default million, or, for a
        /// scenario large enough to need more, ``stepsPerOperationAllowed`` per operation (at most the largest of
        /// ``stepLimits``), so that a round's own size never trips the limit.
        public static func defaultStepLimit(for configuration: ScenarioConfiguration) -> Int {
            let (operations, overflowed) = configuration.workers.multipliedReportingOverflow(
                by: configuration.operationsPerWorker)
            let (scaled, tooMany) = operations.multipliedReportingOverflow(by: stepsPerOperationAllowed)
            guard !overflowed, !tooMany else { return stepLimits.upperBound }
            return min(stepLimits.upperBound, max(Settings().stepLimit, scaled))
        }

        /// Schedule steps per operation a default step limit leaves room for: runs take about 13 (measured over
        /// the profiles against the guard, 4 to 512 workers), so this is several times what a round needs and
        /// still stops a livelock.
        public static let stepsPerOperationAllowed = 100

        /// PCT's expected counted steps for `scenario` when none is given: a measured average of schedule points
        /// with a choice per operation, times the operations.
        public static func estimatedSteps(for scenario: Scenario) -> Int {
            estimatedSteps(operations: scenario.operationCount)
        }

        /// The estimate for a scenario of `operations` operations.
        static func estimatedSteps(operations: Int) -> Int {
            max(1, operations * countedStepsPerOperation)
        }

        /// Measured on the default controlled scenario against the guard: about this many decisions with more than
        /// one runnable worker per operation.
        static let countedStepsPerOperation = 12
    }

    /// How runs are scheduled.
    public var settings: Settings
    /// A recorded schedule to follow instead of the strategy's own choices (an exact replay), or `nil`.
    public var replaying: Schedule?
    /// With ``replaying``: whether a run that goes on past the recorded steps is fine (it continues without
    /// preemption) rather than a divergence.
    public var allowsLongerRuns = false
    /// A strategy of the caller's own, made afresh for each run, instead of the settings' strategy or a replay (the
    /// shrinker's ``GuidedStrategy``). The recording still names the settings' strategy; record the schedule taken,
    /// since that strategy and the seed do not regenerate it.
    package var customStrategy: (@Sendable (Scenario) -> any SchedulingStrategy)?
    /// Set by the explorer: runs the execution it asks for, recording every step's footprint, with per-worker ids and
    /// values (``StressWorld/countersPerWorker``). Takes precedence over every other strategy.
    var exploring: ExplorationOptions?

    /// A runner with `settings`, following `schedule` if given.
    public init(settings: Settings = Settings(), replaying schedule: Schedule? = nil) {
        self.settings = settings
        self.replaying = schedule
    }

    /// Runs `scenario` against `target` and records what happened.
    public func run(_ scenario: Scenario, against target: any SystemUnderTest) -> RunRecording {
        RunEnvironment.exclusively { execute(scenario, against: target) }
    }

    /// The strategy a run of `scenario` uses.
    private func strategy(for scenario: Scenario, expectedSteps: Int) -> any SchedulingStrategy {
        if let customStrategy { return customStrategy(scenario) }
        if let replaying { return ReplayStrategy(schedule: replaying, allowsLongerRuns: allowsLongerRuns) }
        return settings.strategy.makeStrategy(
            runSeed: scenario.seed, workers: scenario.configuration.workers, expectedSteps: expectedSteps)
    }

    private func execute(_ scenario: Scenario, against target: any SystemUnderTest) -> RunRecording {
        RuntimeWarmUp.ensure()
        let baseline = RunEnvironment.Baseline()
        let configuration = scenario.configuration
        let expectedSteps = settings.expectedSteps ?? Settings.estimatedSteps(for: scenario)
        let clock = RunClock.logical()
        let explored = exploring.map { options in
            let recorder = StepRecorder(
                workers: configuration.workers, omitting: options.omittedWords, ticks: { clock.ticksTaken })
            return ExploredRun(session: ExplorationSession(request: options.request, recorder: recorder))
        }
        let workers = (0..<configuration.workers).map { index in
            WorkerContext(index: index, faults: FaultInjection(profile: .none, seed: scenario.seed, worker: index))
        }
        let describeWorker: @Sendable (Int) -> String = { index in
            let current = workers[index].progress.currentIndex
            let operations = scenario.operations[index]
            guard current >= 0, current < operations.count else { return "worker \(index) (between operations)" }
            return "worker \(index) in op \(current) (\(operations[current]))"
        }
        let chosenStrategy: any SchedulingStrategy =
            explored.map { ExplorationStrategy(session: $0.session) }
            ?? strategy(for: scenario, expectedSteps: expectedSteps)
        let scheduler = CooperativeScheduler(
            workers: configuration.workers, strategy: chosenStrategy, stepLimit: settings.stepLimit,
            recordsTrace: settings.recordsTrace, recorder: explored?.session.recorder, describeWorker: describeWorker)
        // Installed before the world is made, so an explorer hears which objects the set-up creates.
        SchedulePoints.install(ControlledHook.shared)
        let world = ControlledHook.settingUp(for: scheduler) {
            StressWorld(
                configuration: configuration, target: target, clock: clock,
                traceRecorder: settings.recordsTrace ? scheduler : nil, countersPerWorker: explored != nil)
        }
        scheduler.name(locks: world.lockNames)

        let threads = workerThreads(scenario, workers, scheduler: scheduler, world: world)
        let start = MonotonicClock.now
        let end: CooperativeScheduler.End =
            scheduler.start(timeout: 10) ? scheduler.awaitEnd(blockedTimeout: settings.blockedTimeout)
            : .abandoned("the worker threads did not all start")
        let seconds = Double(MonotonicClock.now - start) / 1e9
        SchedulePoints.uninstall()
        let scheduling = scheduler.results()
        let execution = ControlledExecution(
            strategy: settings.strategy, expectedSteps: settings.strategy.depth == nil ? nil : expectedSteps,
            stepLimit: settings.stepLimit, schedule: scheduling.schedule, choiceSteps: scheduling.choiceSteps,
            divergence: scheduling.divergence, trace: scheduling.trace)

        explored?.finish(ticksTaken: clock.ticksTaken, deadlockAmongLocks: scheduler.abandonedForDeadlock)
        if case .abandoned(let reason) = end {
            // Blocked workers stay blocked; keep everything they use alive.
            for thread in threads { thread.detach() }
            _ = Unmanaged.passRetained(world)
            var facts = RunFacts()
            facts.deadlock = reason
            facts.stepLimit = settings.stepLimit
            var recording = RunRecording(
                scenario: scenario, targetName: target.name, promisesGuardSemantics: target.promisesGuardSemantics,
                history: History(), facts: facts,
                operationsPerformed: workers.reduce(0) { $0 + $1.progress.completedOperations }, deliveries: 0,
                faultsInjected: 0, seconds: seconds, abandoned: true, controlled: execution,
                reportsDiagnostics: target.reportsDiagnostics)
            recording.explored = explored
            return recording
        }
        for thread in threads { thread.join() }
        var recording = finishedRecording(
            scenario, target, workers: workers, world: world, baseline: baseline,
            stepLimitReport: scheduling.stepLimitReport, execution: execution, seconds: seconds)
        recording.explored = explored
        return recording
    }

    /// One thread per worker: it binds itself to the scheduler, waits its turn, and performs its operations.
    private func workerThreads(
        _ scenario: Scenario, _ workers: [WorkerContext], scheduler: CooperativeScheduler, world: StressWorld
    ) -> [WorkerThread] {
        let cpu = settings.pinsWorkersToOneCPU ? CPUAffinity.currentCPU : nil
        return workers.map { worker in
            let operations = scenario.operations[worker.index]
            return WorkerThread {
                if let cpu { CPUAffinity.pinCallingThread(to: cpu) }
                ControlledHook.bind(scheduler, worker: worker.index)
                WorkerContext.setCurrent(worker)
                scheduler.arrive(worker.index)
                for (index, operation) in operations.enumerated() {
                    worker.progress.begin(index)
                    scheduler.beforeOperation(worker.index)
                    world.perform(operation, index: index, worker: worker)
                    worker.progress.finish()
                }
                WorkerContext.setCurrent(nil)
                scheduler.finish(worker.index)
                ControlledHook.unbind()
            }
        }
    }

    /// The recording of a run whose workers all finished: the history in time order and the facts.
    private func finishedRecording(
        _ scenario: Scenario, _ target: any SystemUnderTest, workers: [WorkerContext], world: StressWorld,
        baseline: RunEnvironment.Baseline, stepLimitReport: String?, execution: ControlledExecution,
        seconds: Double
    ) -> RunRecording {
        var history = History()
        history.operations = workers.flatMap(\.operations).sorted { $0.call < $1.call }
        history.deliveries = (workers.flatMap(\.deliveries) + world.deliveriesOffWorkers).sorted { $0.time < $1.time }
        history.diagnostics = (workers.flatMap(\.diagnostics) + world.diagnostics.recordedOffWorkers)
            .sorted { $0.time < $1.time }
        world.addFacts(to: &history, objectDeinits: workers.flatMap(\.objectDeinits))
        world.releaseEverything()
        history.bulkReleases = workers.flatMap(\.bulkReleases) + world.bulkReleasesOffWorkers
        var facts = baseline.facts(after: world)
        facts.stepLimit = settings.stepLimit
        facts.stepLimitExceeded = stepLimitReport
        facts.unroutedNotifications = world.unroutedNotifications
        facts.userCodeUnderLock = workers.flatMap(\.callsUnderLock)
        var recording = RunRecording(
            scenario: scenario, targetName: target.name, promisesGuardSemantics: target.promisesGuardSemantics,
            history: history, facts: facts, operationsPerformed: history.operations.count,
            deliveries: history.deliveries.count, faultsInjected: 0, seconds: seconds, abandoned: false,
            controlled: execution, reportsDiagnostics: target.reportsDiagnostics)
        recording.dropsWeakRegistrationsInObjectDeinit = target.dropsWeakRegistrationsInObjectDeinit
        recording.releasesInRegistrationOrder = target.releasesInRegistrationOrder
        return recording
    }
}
