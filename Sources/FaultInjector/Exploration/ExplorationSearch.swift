/// What one class of interleavings recorded.
struct ClassVerdict: Hashable, Sendable {
    /// The digest of its canonical history.
    let digest: String
    /// The oracle's signature (empty when it held).
    let signature: String
}

/// One exploration under way: the tree, the counts, and the answer once known. Executions run wherever the caller
/// runs them (in this process, or in child processes); their reports come back here one at a time.
struct ExplorationSearch {
    let explorer: Explorer
    let progress: @Sendable (ExplorationProgress) -> Void
    let tree: ExplorationTree
    private let start = MonotonicClock.now
    private(set) var executions = 0
    private(set) var sleepBlocked = 0
    /// What each class met so far recorded: its canonical digest and the oracle's signature, by class hash.
    private(set) var verdicts: [[UInt64]: ClassVerdict] = [:]
    /// Set once the answer is known before the tree is exhausted.
    private(set) var stop: ExplorationAnswer?
    private var failure: ExploredFailure?
    /// The first failing class of each signature, in the order found.
    private var failures: [ExploredFailure] = []
    /// The steps of the first execution, once known (how deep a subtree handed to a child process starts).
    private var firstSteps: Int?
    /// Subtrees whose first execution is in, to be explored whole by a child process (``nextJob()``).
    private var handedOff: [(request: ExecutionRequest, first: ExecutionReport)] = []

    /// A search of everything, or with `subtree` of everything below that request's branch.
    init(
        explorer: Explorer, subtree: ExecutionRequest? = nil, progress: @escaping @Sendable (ExplorationProgress) -> Void
    ) {
        self.explorer = explorer
        self.progress = progress
        tree = ExplorationTree(
            mode: explorer.settings.mode, workers: explorer.scenario.configuration.workers, subtree: subtree)
    }

    /// Classes explored to the end so far.
    var classes: Int { verdicts.count }

    /// Runs every execution with `execute`, one at a time, until the answer is known.
    mutating func run(_ execute: (ExecutionRequest) -> ExecutionReport) -> ExplorationOutcome {
        while stop == nil, let request = tree.nextRequest() {
            take(execute(request), for: request)
        }
        return outcome()
    }

    /// Takes in one execution's report: counts it, checks its class against earlier executions of the same class,
    /// and stops at a problem, a violation or the execution limit.
    mutating func take(_ report: ExecutionReport, for request: ExecutionRequest) {
        executions += 1
        if let problem = report.problem {
            tree.release(request)
            stop = stop ?? .notAProof(problem)
            return
        }
        if report.execution.sleepBlockedAt != nil {
            sleepBlocked += 1
        } else {
            meet(report.classHash, ClassVerdict(digest: report.canonicalDigest, signature: report.signature))
        }
        if !report.signature.isEmpty {
            note(
                ExploredFailure(
                    signature: report.signature, examples: report.examples, canonicalSchedule: report.canonicalWorkers,
                    execution: executions))
        }
        tree.merge(report, for: request)
        checkLimit()
        if executions % 500 == 0 { progress(ExplorationProgress(executions: executions, classes: classes, seconds: seconds)) }
    }

    /// Counts a class met, or checks it recorded what it recorded before (a class whose executions record different
    /// histories means the footprints miss a dependency).
    mutating func meet(_ classHash: [UInt64], _ verdict: ClassVerdict) {
        guard let known = verdicts[classHash] else {
            verdicts[classHash] = verdict
            return
        }
        if known != verdict, stop == nil {
            stop = .notAProof(
                "two executions of one class recorded different histories (digests \(known.digest) and "
                    + "\(verdict.digest)): the footprints miss a dependency")
        }
    }

    /// Keeps `found` if it is the first failure of its signature, and stops if the settings stop at the first.
    mutating func note(_ found: ExploredFailure) {
        guard !failures.contains(where: { $0.signature == found.signature }) else { return }
        failure = failure ?? found
        failures.append(found)
        if explorer.settings.stopsAtFirstViolation { stop = .violation }
    }

    /// Stops at the execution limit if the tree is not explored yet.
    mutating func checkLimit() {
        if stop == nil, let limit = explorer.settings.maxExecutions, executions >= limit, !tree.isComplete {
            stop = Self.limitReached(after: executions)
        }
    }

    /// The answer of a search stopped by its execution limit.
    static func limitReached(after executions: Int) -> ExplorationAnswer {
        .notAProof("stopped after \(executions) executions (the limit), before every class was explored")
    }

    var seconds: Double { Double(MonotonicClock.now - start) / 1e9 }

    /// The outcome so far: the stop's answer, or what the exhausted tree means.
    func outcome() -> ExplorationOutcome {
        var answer: ExplorationAnswer
        if let stop {
            answer = stop
        } else if failure != nil {
            answer = .violation
        } else if !tree.isComplete {
            answer = .notAProof("the search ended with states left unexplored")
        } else if let bound = explorer.settings.preemptionBound {
            answer = .completeUpToPreemptions(bound)
        } else {
            answer = .complete
        }
        return ExplorationOutcome(
            answer: answer, classes: classes, executions: executions, sleepBlocked: sleepBlocked, seconds: seconds,
            failingClasses: verdicts.values.filter { !$0.signature.isEmpty }.count, failure: failure,
            failures: failures)
    }
}

extension ExplorationSearch {
    /// The hidden subcommand that serves an explorer's child processes (``ExplorationServer``).
    static let serverCommand = "__serve-explorations"

    /// Whether a child process explores the rest of `request`'s subtree once its first execution is in: when its
    /// branch is at least half the first execution's steps deep. The states above stay here, each branch out of them
    /// run one execution at a time; the subtrees below are many and small (a few percent of the whole at most), so
    /// they spread over the jobs, and this process does little of the work.
    private func handsOff(_ request: ExecutionRequest) -> Bool {
        guard let firstSteps else { return false }
        return request.prefix.count - 1 >= max(1, firstSteps / 2)
    }

    /// Runs executions in `explorer.settings.jobs` child processes of `executable` (serving ``serverCommand``), as
    /// many at once, taking their reports in as they finish.
    mutating func runInChildren(executable: String) -> ExplorationOutcome {
        let jobs = explorer.settings.jobs
        let workers: ExplorationWorkers
        do {
            workers = try ExplorationWorkers(count: jobs, executable: executable, arguments: [Self.serverCommand])
        } catch {
            stop = .notAProof("no child process could be started: \(error)")
            return outcome()
        }
        defer { workers.stop() }
        var setUp = ExplorationJob()
        setUp.scenario = ScenarioMessage(explorer.scenario)
        setUp.target = explorer.target.name
        setUp.settings = explorer.settings
        for child in 0..<jobs { workers.submit(setUp, id: -1 - child, to: child) }
        for _ in 0..<jobs {
            if case .failure(let failure) = workers.next().answer {
                stop = stop ?? .notAProof("a child process could not set the scenario up: \(failure)")
            }
        }
        var inFlight: [Int: ExplorationJob] = [:]
        var nextID = 0
        while true {
            while stop == nil, inFlight.count < 2 * jobs, let job = nextJob() {
                workers.submit(job, id: nextID)
                inFlight[nextID] = job
                nextID += 1
            }
            guard !inFlight.isEmpty else { break }
            let (id, answer) = workers.next()
            guard let job = inFlight.removeValue(forKey: id) else { continue }
            take(answer, for: job)
        }
        releaseUnsent()
        return outcome()
    }
}

// MARK: Subtrees explored in child processes

extension ExplorationSearch {
    /// The next job for a child process: a subtree handed off (``handsOff(_:)``), else the next execution, else
    /// `nil` (nothing can be asked for until a running job comes back).
    mutating func nextJob() -> ExplorationJob? {
        var job = ExplorationJob()
        if let (request, first) = handedOff.popLast() {
            job.subtree = request
            job.firstReport = first
            job.executionLimit = explorer.settings.maxExecutions.map { max(0, $0 - executions) }
        } else if let request = tree.nextRequest() {
            job.execution = request
        } else {
            return nil
        }
        return job
    }

    /// Takes in a child process's answer to `job` (from ``nextJob()``): an execution's report (after which the rest
    /// of its subtree may be handed off), or a subtree's; a failure stops the search as not a proof.
    mutating func take(_ answer: Result<ExplorationJobAnswer, ExplorationWorkers.Failure>, for job: ExplorationJob) {
        guard let request = job.subtree ?? job.execution else { return }
        switch answer {
        case .success(let answer) where job.execution != nil && answer.report != nil:
            let report = answer.report!
            if firstSteps == nil { firstSteps = report.execution.steps.count }
            take(report, for: request)
            if stop == nil, handsOff(request), tree.handOff(request) { handedOff.append((request, report)) }
        case .success(let answer) where job.subtree != nil && answer.subtree != nil:
            take(answer.subtree!, for: request)
        case .success:
            tree.release(request)
            stop = stop ?? .notAProof("a child process answered a job without its report")
        case .failure(let failure):
            tree.release(request)
            stop = stop ?? .notAProof("a child process failed during a job: \(failure)")
        }
    }

    /// Releases the subtrees handed off but never sent (the search stopped first).
    mutating func releaseUnsent() {
        for (request, _) in handedOff { tree.release(request) }
        handedOff.removeAll()
    }

    /// Explores everything below the subtree's branch in this process, one execution at a time, stopping after
    /// `limit` executions if given. `first`, if given, is the report of the branch's first execution, run already
    /// (and counted) by whoever handed the subtree over: the search starts from it without running it again.
    mutating func exploreSubtree(from first: ExecutionReport?, limit: Int?) -> SubtreeReport {
        if let first, let request = tree.subtree {
            take(first, for: request)
            executions = 0
            sleepBlocked = 0
        }
        while stop == nil, let request = tree.nextRequest() {
            if let limit, executions >= limit {
                tree.release(request)
                stop = Self.limitReached(after: executions)
                break
            }
            take(explorer.execute(request), for: request)
        }
        var report = SubtreeReport()
        report.executions = executions
        report.sleepBlocked = sleepBlocked
        report.verdicts = verdicts.map { (classHash: $0.key, verdict: $0.value) }
        report.failures = failures
        report.stop = stop
        report.notes = tree.outbox
        return report
    }

    /// Takes in a subtree a child process explored (the job asked for with `request`): its counts, classes and
    /// failures join this search's, and, if it was explored to the end, its branch is done and the backtracking it
    /// found above joins the tree. A subtree cut short stops the search.
    mutating func take(_ subtree: SubtreeReport, for request: ExecutionRequest) {
        let before = executions
        executions += subtree.executions
        sleepBlocked += subtree.sleepBlocked
        for (classHash, verdict) in subtree.verdicts { meet(classHash, verdict) }
        for failure in subtree.failures {
            note(
                ExploredFailure(
                    signature: failure.signature, examples: failure.examples,
                    canonicalSchedule: failure.canonicalSchedule, execution: before + failure.execution))
        }
        guard subtree.isComplete else {
            tree.release(request)
            stop = stop ?? subtree.stop
            return
        }
        tree.merge(subtree: request, notes: subtree.notes)
        checkLimit()
        if before / 500 != executions / 500 {
            progress(ExplorationProgress(executions: executions, classes: classes, seconds: seconds))
        }
    }
}
