import Foundation
import GuardCore

/// The child side of round isolation: reads ``RoundRequest``s (one JSON line each) on standard input, runs each
/// once in this process, and writes a ``RoundAnswer`` (one JSON line) per request on standard output, until
/// standard input ends. If the system under test crashes, traps or hangs, this process dies or is killed, and the
/// parent turns that into the round's verdict.
///
/// `guard-stress` serves rounds this way behind a hidden subcommand. A program with systems under test of its own
/// can serve them too: call ``serve(makeTarget:)`` with a factory that knows their names, and point
/// ``ChildProcessSettings`` at that program.
///
/// Whatever the system under test prints goes to standard error (standard output is kept for answers). Core dumps
/// are turned off, and the server exits by itself when its parent goes away.
public enum RoundServer {
    /// Serves requests until standard input ends; returns the exit status for the process (0, or 1 if the parent
    /// could not be written to). Targets are made by name with `makeTarget` (the catalog's by default).
    public static func serve(
        makeTarget: (_ name: String, _ diagnostics: any DiagnosticSink) -> (any SystemUnderTest)? = TargetCatalog.make
    ) -> Int32 {
        ProcessLimits.disableCoreDumps()
        let answers = dup(1)
        guard answers >= 0, dup2(2, 1) >= 0 else { return 1 }
        ParentWatch.exitWhenOrphaned()
        if getenv("SWIFT_DETERMINISTIC_HASHING").map({ String(cString: $0) }) != "1" {
            StandardError.write(
                "round server: SWIFT_DETERMINISTIC_HASHING is not 1; controlled runs may not match other processes\n")
        }
        let encoder = JSONEncoder()
        let hello = RoundServerHello(pid: getpid(), readyAt: MonotonicClock.now)
        guard let helloLine = try? encoder.encode(hello), ServerOutput.write(line: helloLine, to: answers) else { return 1 }
        var input = LineInput(descriptor: 0)
        let heartbeat = Heartbeat(descriptor: answers)
        while let line = input.next() {
            let start = MonotonicClock.now
            heartbeat.begin()
            var answer = self.answer(Data(line), makeTarget: makeTarget)
            answer.busySeconds = Double(MonotonicClock.now - start) / 1e9
            let encoded = (try? encoder.encode(answer)) ?? Data(#"{"error":"the answer could not be encoded"}"#.utf8)
            guard heartbeat.end(answering: encoded) else { return 1 }
        }
        return 0
    }

    /// While a round runs, writes a heartbeat line (``RoundProgress/heartbeat(_:)``) about twice a second whenever
    /// the round's progress moved, so the parent waits as long as the round moves; the answer is written under the
    /// same lock, so lines never mix.
    private final class Heartbeat: @unchecked Sendable {
        private let descriptor: Int32
        private let lock = NSLock()
        private var running = false
        private var last = 0

        init(descriptor: Int32) {
            self.descriptor = descriptor
            let thread = Thread { [self] in
                while true {
                    usleep(500_000)
                    beat()
                }
            }
            thread.stackSize = 64 * 1024
            thread.start()
        }

        /// A round begins.
        func begin() {
            lock.lock()
            running = true
            last = RoundProgress.current
            lock.unlock()
        }

        /// The round ended: writes its answer; `false` if the parent could not be written to.
        func end(answering answer: Data) -> Bool {
            lock.lock()
            defer { lock.unlock() }
            running = false
            return ServerOutput.write(line: answer, to: descriptor)
        }

        private func beat() {
            lock.lock()
            defer { lock.unlock() }
            let progress = RoundProgress.current
            guard running, progress != last else { return }
            last = progress
            _ = ServerOutput.write(line: Data(RoundProgress.heartbeat(progress).utf8), to: descriptor)
        }
    }

    /// Runs one request and answers it.
    static func answer(
        _ line: Data, makeTarget: (_ name: String, _ diagnostics: any DiagnosticSink) -> (any SystemUnderTest)?
    ) -> RoundAnswer {
        let request: RoundRequest
        do {
            request = try JSONDecoder().decode(RoundRequest.self, from: line)
        } catch {
            return RoundAnswer(error: "the request is not a round: \(error)")
        }
        let diagnostics = CountingSink(keepsEvents: false)
        let name = request.target ?? request.file.target
        guard let target = makeTarget(name, diagnostics) else {
            return RoundAnswer(
                error: "this round server does not know target \"\(name)\": a program that serves a system under test "
                    + "of its own must pass RoundServer.serve(makeTarget:) a factory that makes it by that name (the same "
                    + "one as Campaign.Settings.makeTarget); guard-stress serves only the built-in targets")
        }
        do {
            var round = try SeedFileRound(file: request.file, target: target)
            round.chaosStallTimeout = request.stallTimeout
            let scenario = try request.file.makeScenario()
            var runner = try round.makeRunner()
            if let guide = request.guide {
                guard var controlled = runner as? ControlledRunner else {
                    return RoundAnswer(error: "a guided round needs a controlled seed file, not \(request.file.runner)")
                }
                controlled.replaying = nil
                controlled.customStrategy = { _ in GuidedStrategy(plan: guide) }
                runner = controlled
            }
            let outcome = round.run(scenario, with: runner)
            let result = outcome.result
            var verdict = result.verdict
            verdict.preventedMisuses = diagnostics.counts
            var answer = RoundAnswer(verdict: verdict, mismatch: outcome.mismatch)
            if !result.passed, request.seedFile.wants(result.verdict.signature) {
                answer.seedFile = SeedFile(result: result, toolVersion: ToolVersion.current)
            }
            return answer
        } catch {
            return RoundAnswer(error: "\(error)")
        }
    }
}
