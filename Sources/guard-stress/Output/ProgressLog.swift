import FaultInjector
import Foundation

/// When standard error is not a terminal (a CI log), a whole progress line every so often instead of the line a
/// terminal gets rewritten in place: a long nightly job shows it is alive and how far it got.
struct ProgressLog {
    /// Seconds between lines by default (`--progress SECONDS`).
    static let defaultInterval = 30.0
    /// What an unfinished report says while the command runs (replaced by its final report).
    static let stillRunning =
        "the command had not finished when this report was written: it is still running, or it was killed before it "
        + "could write its final report"

    let interval: Double
    private var next: Double

    init(interval: Double) {
        self.interval = interval
        next = interval
    }

    /// Whether a line is due at `elapsed` seconds (then the next one is due an interval later).
    mutating func isDue(at elapsed: Double) -> Bool {
        guard elapsed >= next else { return false }
        next = (elapsed / interval).rounded(.down) * interval + interval
        return true
    }
}

/// The campaign so far, kept for a report written when a signal stops the campaign (read on the signal's thread).
final class LatestSummary: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: CampaignSummary

    init(_ summary: CampaignSummary) {
        stored = summary
    }

    var value: CampaignSummary {
        get {
            lock.lock()
            defer { lock.unlock() }
            return stored
        }
        set {
            lock.lock()
            stored = newValue
            lock.unlock()
        }
    }
}

/// The last line of `run`, `replay` and `mutants`: `RESULT: <verdict> (exit N)`, printed after the reports were
/// written, with the exit code the process really ends with.
enum ResultLine {
    /// Prints the result line for `verdict` and returns the exit code: `exitCode`, or 2 if a report could not be
    /// written (the line then says so).
    static func print(_ verdict: String, exitCode: ExitCode, reportsWritten: Bool) -> ExitCode {
        guard reportsWritten else {
            Swift.print("RESULT: \(verdict), but a report could not be written (see above) (exit \(ExitCode.badInput.rawValue))")
            return .badInput
        }
        Swift.print("RESULT: \(verdict) (exit \(exitCode.rawValue))")
        return exitCode
    }
}
