import Foundation

/// Runs jobs on up to `count` lanes at once. Each lane is a thread of its own with state only it touches (for
/// example a ``ChildRoundHost`` and the child process it talks to), made on that thread when the lane starts. The
/// caller hands out jobs with ``submit(_:id:)`` and takes the results in the order they finish with ``next()``; it
/// decides what to run next from what has finished, so any ordering or determinism rule lives with the caller.
///
/// With one lane nothing runs beside the caller: ``next()`` runs the job on the calling thread, so a one-lane run
/// behaves exactly like a plain loop (same thread, same stack).
///
/// ``cancel(id:)`` asks a running job to stop: its ``JobControl`` says so, and the handler the job registered runs
/// (for a round in a child process: kill the process). The job still returns an output, which ``next()`` hands back
/// like any other; the caller knows it cancelled it.
///
/// Not thread-safe itself: one thread (the caller) submits, waits and cancels.
final class JobLanes<Lane, Job: Sendable, Output: Sendable> {
    private let count: Int
    private let makeLane: @Sendable (Int) -> Lane
    private let perform: @Sendable (inout Lane, Job, JobControl) -> Output
    private let closeLane: @Sendable (inout Lane) -> Void
    private let shared: LaneBoard<Job, Output>
    private var threads: [Thread] = []
    private var inline: (lane: Lane?, pending: [(id: Int, job: Job, control: JobControl)])
    private var controls: [Int: JobControl] = [:]
    private var closed = false

    /// `count` lanes (at least 1), each made by `makeLane` on its own thread, running jobs with `perform` and closed
    /// with `closeLane` when ``close()`` is called.
    init(
        count: Int, makeLane: @escaping @Sendable (_ laneIndex: Int) -> Lane,
        perform: @escaping @Sendable (inout Lane, Job, JobControl) -> Output,
        closeLane: @escaping @Sendable (inout Lane) -> Void = { _ in }
    ) {
        self.count = max(1, count)
        self.makeLane = makeLane
        self.perform = perform
        self.closeLane = closeLane
        shared = LaneBoard(lanes: self.count)
        inline = (nil, [])
    }

    deinit {
        close()
    }

    /// Lanes without a job.
    var idleLanes: Int { count - running }

    /// Jobs handed out whose outputs ``next()`` has not returned yet.
    private(set) var running = 0

    /// Hands `job` to an idle lane (there must be one); `id` names it in ``next()`` and ``cancel(id:)``.
    func submit(_ job: Job, id: Int) {
        precondition(idleLanes > 0 && !closed, "JobLanes.submit needs an idle lane")
        let control = JobControl()
        controls[id] = control
        running += 1
        if count == 1 {
            inline.pending.append((id, job, control))
            return
        }
        if threads.isEmpty { startThreads() }
        shared.post(job: (id, job, control))
    }

    /// Waits until a job finishes and returns its id and output.
    func next() -> (id: Int, output: Output) {
        precondition(running > 0, "JobLanes.next needs a running job")
        running -= 1
        if count == 1 {
            let (id, job, control) = inline.pending.removeFirst()
            controls[id] = nil
            if inline.lane == nil { inline.lane = makeLane(0) }
            return (id, perform(&inline.lane!, job, control))
        }
        let finished = shared.takeFinished()
        controls[finished.id] = nil
        return finished
    }

    /// Asks job `id` to stop, if it is still running: its control says so and its cancellation handler runs.
    func cancel(id: Int) {
        controls[id]?.cancel()
    }

    /// Ends the lanes: waits for the running jobs (their outputs are dropped), closes each lane on its own thread,
    /// and waits for the threads to end.
    func close() {
        guard !closed else { return }
        closed = true
        if count == 1 {
            if var lane = inline.lane { closeLane(&lane) }
            inline = (nil, [])
            return
        }
        guard !threads.isEmpty else { return }
        shared.finish()
        shared.waitForLanesToEnd()
        threads = []
    }

    private func startThreads() {
        for index in 0..<count {
            let board = shared
            let makeLane = makeLane
            let perform = perform
            let closeLane = closeLane
            let thread = Thread {
                var lane = makeLane(index)
                while let (id, job, control) = board.takeJob() {
                    let output = perform(&lane, job, control)
                    board.post(finished: (id, output))
                }
                closeLane(&lane)
                board.laneEnded()
            }
            // As much stack as a main thread: lanes may run a round's oracle.
            thread.stackSize = 8 << 20
            thread.name = "job lane \(index)"
            threads.append(thread)
            thread.start()
        }
    }

    /// Runs every job in `jobs` on `lanes` lanes and returns the outputs in the jobs' order.
    static func map(
        _ jobs: [Job], lanes: Int, makeLane: @escaping @Sendable (_ laneIndex: Int) -> Lane,
        perform: @escaping @Sendable (inout Lane, Job, JobControl) -> Output,
        closeLane: @escaping @Sendable (inout Lane) -> Void = { _ in }
    ) -> [Output] {
        let pool = JobLanes(count: min(max(1, lanes), max(1, jobs.count)), makeLane: makeLane, perform: perform, closeLane: closeLane)
        defer { pool.close() }
        var outputs = [Output?](repeating: nil, count: jobs.count)
        var nextJob = 0
        while nextJob < jobs.count || pool.running > 0 {
            while nextJob < jobs.count, pool.idleLanes > 0 {
                pool.submit(jobs[nextJob], id: nextJob)
                nextJob += 1
            }
            let (id, output) = pool.next()
            outputs[id] = output
        }
        return outputs.map { $0! }
    }
}

/// Tells a running job whether it was cancelled, and runs the handler it registered when it is.
final class JobControl: @unchecked Sendable {
    private let lock = NSLock()
    private var cancelled = false
    private var handler: (@Sendable () -> Void)?

    /// Whether ``JobLanes/cancel(id:)`` was called for the job.
    var isCancelled: Bool {
        lock.lock()
        defer { lock.unlock() }
        return cancelled
    }

    /// Runs `handler` once when the job is cancelled (at once if it already was). The job calls it again with a new
    /// handler as it moves on (say, from one child process to the next).
    func onCancel(_ handler: @escaping @Sendable () -> Void) {
        lock.lock()
        if cancelled {
            lock.unlock()
            handler()
            return
        }
        self.handler = handler
        lock.unlock()
    }

    /// Forgets the handler (the resource it would stop is gone).
    func clearHandler() {
        lock.lock()
        handler = nil
        lock.unlock()
    }

    fileprivate func cancel() {
        lock.lock()
        guard !cancelled else {
            lock.unlock()
            return
        }
        cancelled = true
        let handler = self.handler
        self.handler = nil
        lock.unlock()
        handler?()
    }
}

/// What the caller and the lane threads share: the jobs waiting for a lane, the outputs waiting for the caller.
private final class LaneBoard<Job: Sendable, Output: Sendable>: @unchecked Sendable {
    private let condition = NSCondition()
    private var jobs: [(id: Int, job: Job, control: JobControl)] = []
    private var finished: [(id: Int, output: Output)] = []
    private var finishing = false
    private var lanesRunning: Int

    init(lanes: Int) {
        lanesRunning = lanes
    }

    func post(job: (id: Int, job: Job, control: JobControl)) {
        condition.lock()
        jobs.append(job)
        condition.broadcast()
        condition.unlock()
    }

    /// The next job for a lane, or `nil` when the lanes are finishing.
    func takeJob() -> (id: Int, job: Job, control: JobControl)? {
        condition.lock()
        defer { condition.unlock() }
        while jobs.isEmpty, !finishing { condition.wait() }
        return jobs.isEmpty ? nil : jobs.removeFirst()
    }

    func post(finished output: (id: Int, output: Output)) {
        condition.lock()
        finished.append(output)
        condition.broadcast()
        condition.unlock()
    }

    func takeFinished() -> (id: Int, output: Output) {
        condition.lock()
        defer { condition.unlock() }
        while finished.isEmpty { condition.wait() }
        return finished.removeFirst()
    }

    /// No more jobs: lanes end once the waiting ones are done.
    func finish() {
        condition.lock()
        finishing = true
        condition.broadcast()
        condition.unlock()
    }

    func laneEnded() {
        condition.lock()
        lanesRunning -= 1
        condition.broadcast()
        condition.unlock()
    }

    func waitForLanesToEnd() {
        condition.lock()
        while lanesRunning > 0 { condition.wait() }
        condition.unlock()
    }
}
