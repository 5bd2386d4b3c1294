import Foundation

/// Verdicts for rounds whose child process never answered: it crashed, trapped, exited, or hung and was killed.
extension Verdict {
    /// The name of the check every isolated round makes: the process running it survived and answered.
    static let survivalCheck = "the round's process survived and answered"

    /// The verdict on a round whose process ended with `end` before answering, after `seconds`: a ``Violation/Kind/trap``
    /// for SIGILL / SIGTRAP (a Swift runtime trap), else a ``Violation/Kind/crash``; `log` is the process's standard
    /// error during the round (the runtime's "Fatal error" or "Program crashed" line goes into the message);
    /// `note` is appended to the message.
    ///
    /// A sanitizer that ended the process (see ``ProcessDeathCause``) makes the crash its own: `crash(ThreadSanitizer)`,
    /// its report's line in the message, whatever status it exited with. A Swift trap that a sanitizer turned into
    /// another signal is still a trap.
    public init(processEnd end: ProcessEnd, log: String, seconds: Double, note: String = "") {
        self.init()
        count(Self.survivalCheck)
        let after = "after \(Self.format(seconds))"
        switch ProcessDeathCause.find(in: log, end: end) {
        case .sanitizer(let name, let line)?:
            crashSignals[name] = 1
            let trap = Self.crashLine(in: log).map { " (\($0))" } ?? ""
            add(.init(.crash, "the round's process was ended by \(name) (\(end)) \(after): \(line)\(trap)\(note)"))
        case .swiftTrap(let signal)?:
            crashSignals[signal ?? end.name] = 1
            let detail = (Self.crashLine(in: log).map { ": \($0)" } ?? "") + note
            let how = signal.map { "\($0), then \(end)" } ?? "\(end)"
            add(.init(.trap, "the round's process trapped (\(how)) \(after)\(detail)"))
        case nil:
            crashSignals[end.name] = 1
            let detail = (Self.crashLine(in: log).map { ": \($0)" } ?? "") + note
            switch end {
            case .signalled where end.isTrap:
                add(.init(.trap, "the round's process trapped (\(end.name)) \(after)\(detail)"))
            case .signalled:
                add(.init(.crash, "the round's process was \(end) \(after)\(detail)"))
            case .exited:
                add(.init(.crash, "the round's process \(end) without finishing the round \(after)\(detail)"))
            }
        }
        self.seconds = seconds
    }

    /// The verdict on a round whose process gave no answer for `seconds`, the last `silentFor` of them (all of
    /// them when `nil`) without progress, and was killed: a deadlock outside the workers' watched run (in the
    /// teardown or the oracle), or a watchdog that could not fire.
    public init(unresponsiveFor seconds: Double, silentFor: Double? = nil, log: String, note: String = "") {
        self.init()
        count(Self.survivalCheck)
        count("no deadlock")
        let detail = Self.crashLine(in: log).map { " (its last words: \($0))" } ?? ""
        add(
            .init(
                .deadlock,
                "the round's process gave no answer, and reported no progress, for \(Self.format(silentFor ?? seconds)) "
                    + "(its own stall watchdog did not fire: "
                    + "a hang outside the workers' run, in the teardown or the oracle) and was killed\(detail)\(note)"))
        self.seconds = seconds
        abandoned = true
    }

    /// The line of `log` that says why the process stopped: Swift's `Fatal error: ...` (also precondition and
    /// assertion failures), or the backtracer's `*** Program crashed: ... ***`; `nil` if there is none.
    static func crashLine(in log: String) -> String? {
        let markers = ["Fatal error", "Precondition failed", "Assertion failed", "Program crashed", "fatal error"]
        let lines = log.split(separator: "\n", omittingEmptySubsequences: true)
        for marker in markers {
            if let line = lines.first(where: { $0.contains(marker) }) {
                let trimmed = line.trimmingCharacters(in: .whitespaces)
                return trimmed.count > 300 ? String(trimmed.prefix(300)) + "…" : trimmed
            }
        }
        return nil
    }

    private static func format(_ seconds: Double) -> String {
        seconds < 10 ? "\((seconds * 10).rounded() / 10) s" : "\(Int(seconds.rounded())) s"
    }
}
