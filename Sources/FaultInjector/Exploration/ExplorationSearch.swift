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

    init(explorer: Explorer, progress: @escaping @Sendable (ExplorationProgress) -> Void) {
        self.explorer = explorer
        self.progress = progress
        tree = ExplorationTree(mode: explorer.settings.mode, workers: explorer.scenario.configuration.workers)
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
        } else if let known = verdicts[report.classHash] {
            if known.digest != report.canonicalDigest || known.signature != report.signature, stop == nil {
                stop = .notAProof(
                    "two executions of one class recorded different histories (digests \(known.digest) and "
                        + "\(report.canonicalDigest)): the footprints miss a dependency")
            }
        } else {
            verdicts[report.classHash] = ClassVerdict(digest: report.canonicalDigest, signature: report.signature)
        }
        if !report.signature.isEmpty, !failures.contains(where: { $0.signature == report.signature }) {
            let found = ExploredFailure(
                signature: report.signature, examples: report.examples, canonicalSchedule: report.canonicalWorkers,
                execution: executions)
            failure = failure ?? found
            failures.append(found)
            if explorer.settings.stopsAtFirstViolation { stop = .violation }
        }
        tree.merge(report, for: request)
        if stop == nil, let limit = explorer.settings.maxExecutions, executions >= limit, !tree.isComplete {
            stop = .notAProof("stopped after \(executions) executions (the limit), before every class was explored")
        }
        if executions % 500 == 0 { progress(ExplorationProgress(executions: executions, classes: classes, seconds: seconds)) }
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
        var inFlight: [Int: ExecutionRequest] = [:]
        var nextID = 0
        while true {
            while stop == nil, inFlight.count < 2 * jobs, let request = tree.nextRequest() {
                var job = ExplorationJob()
                job.execution = request
                workers.submit(job, id: nextID)
                inFlight[nextID] = request
                nextID += 1
            }
            guard !inFlight.isEmpty else { break }
            let (id, answer) = workers.next()
            guard let request = inFlight.removeValue(forKey: id) else { continue }
            switch answer {
            case .success(let answer) where answer.report != nil: take(answer.report!, for: request)
            case .success: stop = stop ?? .notAProof("a child process answered an execution without its report")
            case .failure(let failure):
                tree.release(request)
                stop = stop ?? .notAProof("a child process failed during an execution: \(failure)")
            }
        }
        return outcome()
    }
}
