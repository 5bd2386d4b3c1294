import Foundation

/// The parent side of `explore --jobs N`: child processes serving ``ExplorationServer``, each driven by a thread of
/// its own, so jobs run in parallel; answers come back in the order they finish.
final class ExplorationWorkers: @unchecked Sendable {
    /// Why a child could not do its job.
    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    private final class Child {
        let process: ChildProcess
        init(process: ChildProcess) { self.process = process }
    }

    private let lock = NSCondition()
    private var answers: [(job: Int, answer: Result<ExplorationJobAnswer, Failure>)] = []
    /// Jobs for one child each (set-ups).
    private var queues: [[(Int, ExplorationJob)]]
    /// Jobs for whichever child is free first.
    private var shared: [(Int, ExplorationJob)] = []
    private let children: [Child]
    private var threads: [Thread] = []
    private var stopping = false

    /// Starts `count` children of `executable` (run with `arguments`), with `SWIFT_DETERMINISTIC_HASHING=1`.
    init(count: Int, executable: String, arguments: [String]) throws {
        var environment = ProcessInfo.processInfo.environment
        environment["SWIFT_DETERMINISTIC_HASHING"] = "1"
        let variables = environment.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }
        var started: [Child] = []
        for index in 0..<count {
            let log = (NSTemporaryDirectory() as NSString).appendingPathComponent(
                "guard-stress-explore-\(ProcessInfo.processInfo.processIdentifier)-\(index).log")
            do {
                started.append(
                    Child(process: try ChildProcess(executable: executable, arguments: arguments, environment: variables, logPath: log)))
            } catch {
                for child in started { _ = child.process.kill() }
                throw Failure(description: "\(error)")
            }
        }
        children = started
        queues = Array(repeating: [], count: count)
        for index in 0..<count {
            let thread = Thread { [unowned self] in self.drive(index) }
            thread.stackSize = 1 << 20
            threads.append(thread)
            thread.start()
        }
    }

    /// Queues job number `id` for the first child free to take it (`to`: for that child only, for jobs that must
    /// follow its set-up).
    func submit(_ job: ExplorationJob, id: Int, to child: Int? = nil) {
        lock.lock()
        defer { lock.unlock() }
        if let child {
            queues[child].append((id, job))
        } else {
            shared.append((id, job))
        }
        lock.broadcast()
    }

    /// The next answer to finish (waits for one), with the child that gave it.
    func next() -> (job: Int, answer: Result<ExplorationJobAnswer, Failure>) {
        lock.lock()
        defer { lock.unlock() }
        while answers.isEmpty { lock.wait() }
        return answers.removeFirst()
    }

    /// Ends every child.
    func stop() {
        lock.lock()
        stopping = true
        lock.broadcast()
        lock.unlock()
        for child in children {
            child.process.closeInput()
            _ = child.process.kill()
            child.process.removeLog()
        }
    }

    private func drive(_ index: Int) {
        let encoder = JSONEncoder()
        while true {
            lock.lock()
            while queues[index].isEmpty, shared.isEmpty, !stopping { lock.wait() }
            if stopping {
                lock.unlock()
                return
            }
            let (id, job) = queues[index].isEmpty ? shared.removeFirst() : queues[index].removeFirst()
            lock.unlock()
            let result = exchange(job, with: children[index].process, encoder: encoder)
            lock.lock()
            answers.append((id, result))
            lock.broadcast()
            lock.unlock()
        }
    }

    private func exchange(
        _ job: ExplorationJob, with process: ChildProcess, encoder: JSONEncoder
    ) -> Result<ExplorationJobAnswer, Failure> {
        guard let line = try? encoder.encode(job), process.send([UInt8](line)) else {
            return .failure(Failure(description: "the child process \(process.pid) no longer reads its jobs"))
        }
        switch process.readLine(timeout: .infinity) {
        case .line(let bytes):
            guard let answer = try? JSONDecoder().decode(ExplorationJobAnswer.self, from: Data(bytes)) else {
                return .failure(Failure(description: "the child process \(process.pid) answered something unreadable"))
            }
            if let error = answer.error { return .failure(Failure(description: error)) }
            return .success(answer)
        case .endOfFile, .timedOut:
            let log = process.log(from: 0).trimmingCharacters(in: .whitespacesAndNewlines)
            return .failure(
                Failure(
                    description: "the child process \(process.pid) ended during a job"
                        + (log.isEmpty ? "" : ": " + String(log.suffix(2000)))))
        }
    }
}
