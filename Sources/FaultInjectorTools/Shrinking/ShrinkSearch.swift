import FaultInjector
import GuardCore

/// One shrinking session: the smallest failing run so far, the candidates tried, the budget, and the passes.
final class ShrinkSearch {
    /// The smallest run so far that fails with the signature.
    struct Best {
        let run: CandidateRun
        /// Controlled: whether the file's strategy and seed produced this run's schedule.
        let scheduleFromStrategy: Bool
        var scenario: Scenario { run.scenario }
        /// The plan of the run's schedule (an empty plan when the run's process died before reporting it).
        var plan: SwitchPlan { run.schedule.map(SwitchPlan.init) ?? SwitchPlan() }
    }

    private let shrinker: Shrinker
    private let progress: (ShrinkProgress) -> Void
    private let executor: CandidateExecutor
    /// Runs serial orders (the controlled runner, whatever the file's runner).
    private let serialExecutor: CandidateExecutor
    private let signature: String
    private let start = MonotonicClock.now
    private var tried: Set<Scenario> = []
    private(set) var best: Best!
    private(set) var candidates = 0
    private(set) var runs = 0
    private(set) var originalSignatures: [String] = []
    private(set) var exhaustedBudget: String?
    /// Whether the original needs its workers interleaved to fail (``checkRace()``); every kept candidate then must too.
    private(set) var race: RaceVerdict?

    init(shrinker: Shrinker, progress: @escaping (ShrinkProgress) -> Void) {
        self.shrinker = shrinker
        self.progress = progress
        executor = CandidateExecutor(
            file: shrinker.file, target: shrinker.target, runner: shrinker.runner, isolation: shrinker.settings.isolation)
        serialExecutor = shrinker.runner.controlledSettings != nil
            ? executor
            : CandidateExecutor(
                file: shrinker.file, target: shrinker.target, runner: .controlled(.init()),
                isolation: shrinker.settings.isolation)
        signature = shrinker.file.failure.signature
    }

    var elapsed: Double { Double(MonotonicClock.now - start) / 1e9 }

    private var isControlled: Bool { shrinker.runner.controlledSettings != nil }

    /// What running candidates in child processes cost (`nil` in process).
    var isolationStatistics: IsolationStatistics? { executor.isolationStatistics }

    // MARK: Running

    private func run(_ scenario: Scenario, _ schedule: CandidateSchedule) -> CandidateRun {
        runs += 1
        return executor.run(scenario, schedule)
    }

    private func fails(_ run: CandidateRun) -> Bool {
        run.fails(with: signature)
    }

    /// Runs the file as recorded: a controlled file follows its schedule (else its strategy and seed), a chaos
    /// file runs up to the runs per candidate.
    func reproduceOriginal() -> Bool {
        let scenario = shrinker.scenario
        if isControlled {
            var attempts: [(CandidateSchedule, Bool)] = []
            if let schedule = shrinker.recordedSchedule { attempts.append((.recorded(schedule), false)) }
            attempts.append((.strategy, true))
            for (schedule, fromStrategy) in attempts {
                let result = run(scenario, schedule)
                originalSignatures.append(result.signature)
                if fails(result) {
                    // A recorded schedule came from the strategy unless an earlier shrink guided it.
                    let regenerates = fromStrategy || (shrinker.file.shrunk?.scheduleFromStrategy ?? true)
                    best = Best(run: result, scheduleFromStrategy: regenerates)
                    return true
                }
            }
            return false
        }
        for _ in 0..<shrinker.settings.runsPerCandidate {
            let result = run(scenario, .chaos)
            originalSignatures.append(result.signature)
            if fails(result) {
                best = Best(run: result, scheduleFromStrategy: false)
                return true
            }
        }
        return false
    }

    private var outOfBudget: Bool {
        if exhaustedBudget != nil { return true }
        if let failure = executor.failure {
            exhaustedBudget = "the child processes (\(failure.description))"
        } else if candidates >= shrinker.settings.maximumCandidates {
            exhaustedBudget = "the candidate budget (\(shrinker.settings.maximumCandidates) candidates)"
        } else if elapsed >= shrinker.settings.maximumSeconds {
            exhaustedBudget = "the time budget (\(shrinker.settings.maximumSeconds) s)"
        }
        return exhaustedBudget != nil
    }

    /// Tries `scenario` (whose worker `i` was worker `origins[i]` of the current best); if it fails with the
    /// signature (and, when the failure is a race, fails in no serial order) it becomes the best. Returns whether it
    /// did.
    private func attempt(_ scenario: Scenario, origins: [Int]? = nil, note: @autoclosure () -> String) -> Bool {
        guard !outOfBudget, scenario != best.scenario, scenario.isUsable, tried.insert(scenario).inserted else {
            return false
        }
        candidates += 1
        if elapsed - lastReport >= Self.heartbeatSeconds {
            report("still searching: \(candidates) candidates tried, \(runs) runs")
        }
        guard let (failing, fromStrategy) = failingRun(scenario, origins: origins) else { return false }
        // A race stays a race: a candidate that fails with its workers run one after another is a sequential misuse.
        if race?.needsConcurrency == true, serialOrderFailing(scenario) != nil { return false }
        return adopt(failing, fromStrategy: fromStrategy, note: note())
    }

    /// A run of `scenario` that fails with the signature, and whether the file's strategy made its schedule: with
    /// the strategy, then guided by the best run's schedule (controlled), or up to the runs per candidate (chaos).
    private func failingRun(_ scenario: Scenario, origins: [Int]?) -> (CandidateRun, Bool)? {
        if isControlled {
            let byStrategy = run(scenario, .strategy)
            if fails(byStrategy) { return (byStrategy, true) }
            let plan = best.plan.renumbering(workers: origins ?? Array(scenario.operations.indices))
            let guided = run(scenario, .guided(plan))
            return fails(guided) ? (guided, false) : nil
        }
        for _ in 0..<shrinker.settings.runsPerCandidate {
            let result = run(scenario, .chaos)
            if fails(result) { return (result, false) }
        }
        return nil
    }

    // MARK: Race or sequential misuse

    /// Decides whether the original failure needs concurrency: it does when no serial order of its workers fails
    /// with the signature. Called once the original reproduced.
    private func checkRace() {
        let scenario = best.scenario
        let workers = scenario.operations.filter { !$0.isEmpty }.count
        var others: [String] = []
        if workers <= 1 {
            race = .sequential(firstWorker: 0, serialOrders: 0)
        } else if let first = serialOrderFailing(scenario, otherFailures: &others) {
            race = .sequential(firstWorker: first, serialOrders: scenario.operations.count)
        } else {
            race = .race(serialOrders: scenario.operations.count, otherFailures: Array(Set(others)).sorted())
        }
        report(race!.summary)
    }

    /// The first worker of a serial order (each worker run alone to its end, one after another, starting with that
    /// worker and then the others in turn) in which `scenario` fails with the signature; `nil` if none does.
    /// `otherFailures` gets the other signatures the orders tried failed with.
    private func serialOrderFailing(_ scenario: Scenario, otherFailures: inout [String]) -> Int? {
        for first in scenario.operations.indices where !scenario.operations[first].isEmpty {
            runs += 1
            let run = serialExecutor.run(scenario, .serial(first: first))
            if fails(run) { return first }
            if !run.signature.isEmpty { otherFailures.append(run.signature) }
        }
        return nil
    }

    private func serialOrderFailing(_ scenario: Scenario) -> Int? {
        var ignored: [String] = []
        return serialOrderFailing(scenario, otherFailures: &ignored)
    }

    private func adopt(_ result: CandidateRun, fromStrategy: Bool, note: String) -> Bool {
        best = Best(run: result, scheduleFromStrategy: fromStrategy)
        report(note)
        return true
    }

    /// Seconds without a smaller failure after which a progress line says the search goes on.
    static let heartbeatSeconds = 10.0
    private var lastReport = 0.0

    private func report(_ note: String) {
        lastReport = elapsed
        progress(ShrinkProgress(note: note, size: ShrinkSize(best.run), candidates: candidates, seconds: elapsed))
    }

    // MARK: Passes

    /// Repeats the scenario passes while they make progress, then shrinks a controlled schedule.
    func run() {
        report("reproduced the failure \(signature)")
        checkRace()
        while !outOfBudget {
            let before = acceptedCount
            reduceWorkers()
            reduceOperations()
            dropIdleWorkers()
            mergeWorkers()
            simplifyOperations()
            mergeSlotsAndKeys()
            compactSlots()
            if acceptedCount == before { break }
        }
        if isControlled { reduceSchedule() }
    }

    /// Candidates that became the best.
    private var acceptedCount = 0

    private func accepted(_ didAccept: Bool) -> Bool {
        if didAccept { acceptedCount += 1 }
        return didAccept
    }

    /// Delta debugging over whole workers.
    private func reduceWorkers() {
        let base = best.scenario
        guard base.operations.count > 1 else { return }
        var current = Array(base.operations.indices)
        _ = DeltaDebugging.minimize(Array(base.operations.indices), shouldStop: { self.outOfBudget }) { kept in
            let origins = kept.map { current.firstIndex(of: $0)! }
            let candidate = base.replacingOperations(kept.map { base.operations[$0] })
            guard self.accepted(self.attempt(candidate, origins: origins, note: "workers: \(current.count) → \(kept.count)"))
            else { return false }
            current = kept
            return true
        }
    }

    /// Delta debugging over each worker's operations, the longest list first.
    private func reduceOperations() {
        let order = best.scenario.operations.indices.sorted { best.scenario.operations[$0].count > best.scenario.operations[$1].count }
        for worker in order where !outOfBudget {
            let base = best.scenario
            let list = base.operations[worker]
            guard !list.isEmpty else { continue }
            _ = DeltaDebugging.minimize(Array(list.indices), allowsEmpty: true, shouldStop: { self.outOfBudget }) { kept in
                var operations = base.operations
                operations[worker] = kept.map { list[$0] }
                let candidate = base.replacingOperations(operations)
                let before = self.best.scenario.operations[worker].count
                return self.accepted(
                    self.attempt(candidate, note: "operations of worker \(worker): \(before) → \(kept.count)"))
            }
        }
    }

    /// Drops the workers that have no operations left.
    private func dropIdleWorkers() {
        let base = best.scenario
        let busy = base.operations.indices.filter { !base.operations[$0].isEmpty }
        guard busy.count < base.operations.count, !busy.isEmpty else { return }
        _ = accepted(
            attempt(
                base.replacingOperations(busy.map { base.operations[$0] }), origins: busy,
                note: "workers without operations dropped: \(base.operations.count) → \(busy.count)"))
    }

    /// Runs two workers' operations one after the other on one worker (either order), so fewer workers remain.
    private func mergeWorkers() {
        var merged = true
        while merged, !outOfBudget {
            merged = false
            let base = best.scenario
            let count = base.operations.count
            search: for first in 0..<count {
                for second in 0..<count where second != first {
                    var operations = base.operations
                    operations[min(first, second)] = base.operations[first] + base.operations[second]
                    operations.remove(at: max(first, second))
                    var origins = Array(0..<count)
                    origins.remove(at: max(first, second))
                    if accepted(
                        attempt(
                            base.replacingOperations(operations), origins: origins,
                            note: "worker \(second)'s operations run after worker \(first)'s on one worker: \(count) → \(count - 1) workers"))
                    {
                        merged = true
                        break search
                    }
                }
            }
        }
    }

    /// Tries each operation's simpler text forms (no handler action, fewer options), keeping each that still fails.
    private func simplifyOperations() {
        for worker in best.scenario.operations.indices {
            var index = 0
            while index < best.scenario.operations[worker].count, !outOfBudget {
                let base = best.scenario
                let operation = base.operations[worker][index]
                var simplified = false
                for text in OperationText(operation).simplifications {
                    guard let simpler = Operation(text) else { continue }
                    var operations = base.operations
                    operations[worker][index] = simpler
                    if accepted(
                        attempt(
                            base.replacingOperations(operations),
                            note: "worker \(worker) op \(index): \(operation) → \(simpler)"))
                    {
                        simplified = true
                        break
                    }
                }
                if !simplified { index += 1 }
            }
        }
    }

    /// Merges slots into lower ones and keys into earlier ones, so fewer things need telling apart.
    private func mergeSlotsAndKeys() {
        for prefix: Character in ["c", "o"] {
            var merged = true
            while merged, !outOfBudget {
                merged = false
                let used = best.scenario.usedSlots(prefix)
                search: for from in used.reversed() {
                    for into in used where into < from {
                        guard let candidate = best.scenario.mergingSlot(prefix, from, into: into) else { continue }
                        if accepted(attempt(candidate, note: "slot \(prefix)\(from) merged into \(prefix)\(into)")) {
                            merged = true
                            break search
                        }
                    }
                }
            }
        }
        var merged = true
        while merged, !outOfBudget {
            merged = false
            let used = best.scenario.usedKeys
            search: for (position, old) in used.enumerated().reversed() {
                for new in used[..<position] {
                    guard let candidate = best.scenario.replacingKey(old, with: new) else { continue }
                    if accepted(attempt(candidate, note: "key \(old) replaced by \(new)")) {
                        merged = true
                        break search
                    }
                }
            }
        }
        // The first keys read most plainly: `k1` alone becomes `k0` if that still fails.
        let all = StressKey.allCases.map(\.name)
        for old in best.scenario.usedKeys where !outOfBudget {
            let used = best.scenario.usedKeys
            guard let new = all.prefix(while: { $0 != old }).first(where: { !used.contains($0) }),
                let candidate = best.scenario.replacingKey(old, with: new)
            else { continue }
            _ = accepted(attempt(candidate, note: "key \(old) renamed \(new)"))
        }
    }

    /// Renumbers the slots from 0 and cuts the slot counts to what is used.
    private func compactSlots() {
        if let compacted = best.scenario.compacted(),
            accepted(attempt(compacted, note: "slots renumbered from 0: " + Self.slotCounts(compacted.configuration)))
        {
            return
        }
        let truncated = best.scenario.truncatingSlots()
        _ = accepted(
            attempt(
                truncated,
                note: "slot counts cut to " + Self.slotCounts(truncated.configuration)))
    }

    private static func slotCounts(_ configuration: ScenarioConfiguration) -> String {
        let controllers = configuration.controllers
        let objects = configuration.objects
        return "\(controllers) controller\(controllers == 1 ? "" : "s"), \(objects) object\(objects == 1 ? "" : "s")"
    }

    /// Delta debugging over the preemptions of the best run's schedule: the fewest switches that still fail.
    private func reduceSchedule() {
        guard isControlled, let schedule = best.run.schedule else { return }
        let plan = SwitchPlan(schedule)
        guard !plan.preemptionOrder.isEmpty else { return }
        let scenario = best.scenario
        _ = DeltaDebugging.minimize(plan.preemptionOrder, allowsEmpty: true, shouldStop: { self.outOfBudget }) { kept in
            guard !self.outOfBudget else { return false }
            self.candidates += 1
            let result = self.run(scenario, .guided(plan.keeping(preemptions: kept)))
            guard self.fails(result) else { return false }
            let before = self.best.plan.preemptionOrder.count
            let after = result.schedule.map { SwitchPlan($0).preemptionOrder.count } ?? 0
            return self.accepted(
                self.adopt(result, fromStrategy: false, note: "schedule: \(before) → \(after) preemptions"))
        }
    }
}
