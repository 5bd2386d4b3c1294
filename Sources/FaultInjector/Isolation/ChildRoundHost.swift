import Foundation
import GuardCore

/// Runs rounds in child processes, one round at a time. It starts a process when it needs one (and starts the next
/// one while the last round of the current one runs, so start-up overlaps work), sends it a ``RoundRequest``, waits
/// for the ``RoundAnswer`` no longer than ``ChildProcessSettings/answerTimeout(operations:)``, and replaces the
/// process after `roundsPerProcess` rounds, after a round that abandoned blocked workers, and whenever it dies.
///
/// A process that dies or stops answering during a round makes that round's verdict (`crash(SIGSEGV)`, `trap`,
/// `deadlock`); its standard error during the round comes with it.
package final class ChildRoundHost {
    /// How a round handed to a child ended.
    package enum Result {
        /// The child answered.
        case answered(RoundAnswer)
        /// The child died or was killed before answering: the verdict says how, `log` is its standard error during
        /// the round.
        case ended(Verdict, log: String)
        /// No child could run the round.
        case failed(IsolationError)
        /// The round was stopped from outside (``interrupt()``): its process was killed, it has no verdict.
        case interrupted
    }

    private struct Child {
        let process: ChildProcess
        let startedAt: UInt64
        var served = 0
    }

    /// How children are started and watched.
    package let settings: ChildProcessSettings
    /// Rounds one process serves before a fresh one takes over.
    let roundsPerProcess: Int
    /// What isolation cost so far.
    package private(set) var statistics = IsolationStatistics()
    private var current: Child?
    private var spare: Child?
    private let environment: [String]
    private var started = 0
    private let inFlight = InFlightChild()

    /// A host starting children as `settings` say, each serving at most `roundsPerProcess` rounds.
    package init(settings: ChildProcessSettings, roundsPerProcess: Int) {
        self.settings = settings
        self.roundsPerProcess = max(1, roundsPerProcess)
        var environment = ProcessInfo.processInfo.environment
        for (name, value) in settings.environment { environment[name] = value }
        environment["SWIFT_DETERMINISTIC_HASHING"] = "1"
        self.environment = environment.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }
    }

    deinit {
        finish()
    }

    /// Runs `request` (whose scenario has `operations` operations) in a child.
    package func run(_ request: RoundRequest, operations: Int) -> Result {
        let encoded: Data
        do {
            encoded = try JSONEncoder().encode(request)
        } catch {
            return .failed(IsolationError(description: "cannot encode the round for the child process: \(error)"))
        }
        return run(encoded: Array(encoded), operations: operations)
    }

    /// Runs an encoded ``RoundRequest`` in a child.
    func run(encoded request: [UInt8], operations: Int) -> Result {
        var child: Child
        do {
            child = try readyChild()
        } catch let error as IsolationError {
            return .failed(error)
        } catch {
            return .failed(IsolationError(description: "\(error)"))
        }
        let earlierRounds = child.served
        child.served += 1
        let retiresAfter = child.served >= roundsPerProcess
        if retiresAfter, spare == nil { spare = try? spawn() }
        let logStart = child.process.logSize
        let sent = MonotonicClock.now
        let timeout = settings.answerTimeout(operations: operations)
        inFlight.begin(child.process.pid)
        var read = child.process.send(request) ? child.process.readLine(timeout: timeout) : .endOfFile
        // Heartbeats: the round is still moving, so the deadline counts again from now.
        while case .line(let bytes) = read, bytes.starts(with: Array(RoundProgress.heartbeatPrefix.utf8)) {
            read = child.process.readLine(timeout: timeout)
        }
        if inFlight.end() {
            retire(child)
            return .interrupted
        }
        let elapsed = Double(MonotonicClock.now - sent) / 1e9
        let note =
            earlierRounds > 0
            ? " (this process had run \(earlierRounds) earlier round\(earlierRounds == 1 ? "" : "s"); "
                + "replay the seed file to confirm the failure is this round's own)" : ""

        switch read {
        case .line(let bytes):
            guard var answer = try? JSONDecoder().decode(RoundAnswer.self, from: Data(bytes)) else {
                let log = child.process.log(from: logStart)
                retire(child)
                return .failed(
                    IsolationError(description: "the child process answered something that is not a round answer: "
                        + String(decoding: bytes.prefix(200), as: UTF8.self) + (log.isEmpty ? "" : "; its log: \(log)")))
            }
            if answer.verdict?.abandoned == true, let death = death(of: child, since: logStart, after: elapsed, note: note) {
                return death
            }
            statistics.rounds += 1
            statistics.roundTripSeconds += elapsed
            statistics.busySeconds += answer.busySeconds
            answer.verdict?.count(Verdict.survivalCheck)
            if retiresAfter || answer.verdict?.abandoned == true {
                retire(child)
            } else {
                current = child
            }
            return .answered(answer)
        case .endOfFile:
            // Its output closed: it is dying (the crash backtracer may still be writing its log).
            let end = child.process.waitForEnd(timeout: 60) ?? child.process.kill()
            let log = child.process.log(from: logStart)
            lose(child)
            return .ended(Verdict(processEnd: end, log: log, seconds: elapsed, note: note), log: log)
        case .timedOut:
            child.process.kill()
            let log = child.process.log(from: logStart)
            lose(child)
            return .ended(Verdict(unresponsiveFor: elapsed, silentFor: timeout, log: log, note: note), log: log)
        }
    }

    /// Stops the round running now, if one is, from any thread: kills its process, and the host's
    /// ``run(encoded:operations:)`` answers ``Result/interrupted``. Later rounds run as usual.
    func interrupt() {
        inFlight.interrupt()
    }

    /// A function that does what ``interrupt()`` does, for another thread to call.
    var interrupter: @Sendable () -> Void {
        { [inFlight] in inFlight.interrupt() }
    }

    /// The verdict on a child that abandoned its round as blocked while dying: a worker that crashed stops reaching
    /// schedule points and making progress while Swift's backtracer or a sanitizer writes its report (a sanitizer's
    /// symbolized report can take longer than the watchdog waits), so the round reads as a deadlock. When the log
    /// shows the death under way and the process ends, its ending is the verdict; otherwise `nil`.
    private func death(of child: Child, since logStart: Int, after elapsed: Double, note: String) -> Result? {
        guard ProcessDeathCause.isDying(log: child.process.log(from: logStart)),
            let end = child.process.waitForEnd(timeout: 60)
        else { return nil }
        let log = child.process.log(from: logStart)
        lose(child)
        return .ended(Verdict(processEnd: end, log: log, seconds: elapsed, note: note), log: log)
    }

    /// Stops every child.
    package func finish() {
        if let current { retire(current) }
        if let spare { retire(spare) }
        current = nil
        spare = nil
    }

    // MARK: Processes

    /// The current child, or a new one that has said it is ready.
    private func readyChild() throws -> Child {
        if let current {
            self.current = nil
            return current
        }
        let child = try spare ?? spawn()
        spare = nil
        let waitStart = MonotonicClock.now
        let read = child.process.readLine(timeout: settings.startTimeout)
        statistics.startupWaitSeconds += Double(MonotonicClock.now - waitStart) / 1e9
        switch read {
        case .line(let bytes):
            guard let hello = try? JSONDecoder().decode(RoundServerHello.self, from: Data(bytes)) else {
                retire(child)
                throw IsolationError(
                    description: "\(settings.executable) \(settings.arguments.joined(separator: " ")) is not a round "
                        + "server: its first line was \"\(String(decoding: bytes.prefix(200), as: UTF8.self))\"")
            }
            if hello.readyAt >= child.startedAt {
                statistics.processesReady += 1
                statistics.startupSeconds += Double(hello.readyAt - child.startedAt) / 1e9
            }
            return child
        case .endOfFile:
            let end = child.process.waitForEnd(timeout: 60) ?? child.process.kill()
            let log = child.process.log(from: 0)
            retire(child)
            throw IsolationError(
                description: "the round server \(settings.executable) \(end) before it was ready"
                    + (log.isEmpty ? "" : ": \(log.trimmingCharacters(in: .whitespacesAndNewlines))"))
        case .timedOut:
            retire(child)
            throw IsolationError(
                description: "the round server \(settings.executable) was not ready within \(Int(settings.startTimeout)) s")
        }
    }

    private func spawn() throws -> Child {
        started += 1
        // Numbered across the process, not per host: hosts of parallel jobs run children at once, and two children
        // writing one log would mix (and truncate) each other's reports.
        let logPath = (NSTemporaryDirectory() as NSString).appendingPathComponent(
            "guard-stress-round-\(ProcessInfo.processInfo.processIdentifier)-\(ChildLogNumbers.next()).log")
        let startedAt = MonotonicClock.now
        let process: ChildProcess
        do {
            process = try ChildProcess(
                executable: settings.executable, arguments: settings.arguments, environment: environment, logPath: logPath)
        } catch {
            throw IsolationError(description: "\(error)")
        }
        statistics.processesStarted += 1
        return Child(process: process, startedAt: startedAt)
    }

    /// Ends a child that did its work (it may still be running; it has nothing left to do).
    private func retire(_ child: Child) {
        child.process.closeInput()
        child.process.kill()
        child.process.removeLog()
    }

    /// Ends a child that died or hung during a round.
    private func lose(_ child: Child) {
        statistics.processesLost += 1
        retire(child)
    }
}

/// The child running a round now, for stopping it from another thread.
private final class InFlightChild: @unchecked Sendable {
    private let lock = NSLock()
    private var pid: pid_t?
    private var interrupted = false

    /// A round is about to go to `pid`.
    func begin(_ pid: pid_t) {
        lock.lock()
        defer { lock.unlock() }
        self.pid = pid
        interrupted = false
    }

    /// The round's read is over; `true` if it was interrupted meanwhile.
    func end() -> Bool {
        lock.lock()
        defer { lock.unlock() }
        pid = nil
        return interrupted
    }

    /// Kills the round's process, if a round is running.
    func interrupt() {
        lock.lock()
        defer { lock.unlock() }
        guard let pid else { return }
        interrupted = true
        ChildProcessRegistry.shared.kill(pid)
    }
}

/// Numbers for the children's log files, unique in this process.
private enum ChildLogNumbers {
    private static let last = Protected(0)

    static func next() -> Int {
        last.withValue { last in
            last += 1
            return last
        }
    }
}
