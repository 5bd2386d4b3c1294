/// Why a process under test died, read from its standard error where the signal or exit status alone misleads.
///
/// A process built with a sanitizer (`swift build --sanitize=thread`, `--sanitize=address`) does not die of the
/// signal its bug raised: the sanitizer catches it, prints its report and exits with its own status (66 for
/// ThreadSanitizer, 1 for AddressSanitizer). That is a crash of its own kind, `crash(ThreadSanitizer)`. And a Swift
/// runtime trap under a sanitizer can end by another signal than SIGILL or SIGTRAP (the sanitizer fails while Swift's
/// backtracer runs): Swift's own `Fatal error` line still says it trapped.
enum ProcessDeathCause: Equatable {
    /// A sanitizer reported an error and ended the process: its name (`ThreadSanitizer`) and its report's line.
    case sanitizer(name: String, line: String)
    /// The Swift runtime trapped: the signal Swift's backtracer named (`SIGILL`), if it named one.
    case swiftTrap(signal: String?)

    /// The sanitizers recognized, by the name they print.
    static let sanitizerNames = [
        "ThreadSanitizer", "AddressSanitizer", "LeakSanitizer", "UndefinedBehaviorSanitizer", "MemorySanitizer",
    ]

    /// Swift's words for a runtime trap (`fatalError`, `precondition`, `assert` in debug builds).
    static let trapMarkers = ["Fatal error", "Precondition failed", "Assertion failed"]

    /// The cause `log` (the process's standard error) shows for a process that ended with `end`, or `nil` when the
    /// ending says it all. A sanitizer's error report (`ERROR: ThreadSanitizer: SEGV on unknown address …`), or a
    /// report it exited on (`WARNING: ThreadSanitizer: data race` with `halt_on_error`), is the sanitizer's death,
    /// even after a trap; a trap's line with a process that did not end by a trap's signal (the sanitizer failed in
    /// Swift's backtracer and killed it, or exited) is a trap.
    static func find(in log: String, end: ProcessEnd) -> ProcessDeathCause? {
        let lines = log.split(separator: "\n", omittingEmptySubsequences: true).map(String.init)
        for name in sanitizerNames {
            if let line = lines.first(where: { $0.contains("ERROR: \(name):") }) {
                return .sanitizer(name: name, line: trimmed(line))
            }
            if case .exited(let status) = end, status != 0,
                let line = lines.first(where: { $0.contains("WARNING: \(name):") || $0.contains("SUMMARY: \(name):") })
            {
                return .sanitizer(name: name, line: trimmed(line))
            }
        }
        guard !end.isTrap, end != .exited(0), lines.contains(where: isTrapLine) else { return nil }
        return .swiftTrap(signal: backtracerSignal(in: lines))
    }

    /// Whether `log` shows the process dying already: a sanitizer caught a deadly signal or reported an error, or
    /// Swift trapped or its backtracer reported a crash. A round that such a process abandons as blocked (its
    /// crashing worker stopped reaching schedule points while the report was written) is that death, not a deadlock.
    static func isDying(log: String) -> Bool {
        log.split(separator: "\n", omittingEmptySubsequences: true).contains { line in
            isTrapLine(line) || line.contains("Program crashed")
                || sanitizerNames.contains { line.contains("\($0):DEADLYSIGNAL") || line.contains("ERROR: \($0):") }
        }
    }

    private static func isTrapLine(_ line: some StringProtocol) -> Bool {
        trapMarkers.contains { line.contains($0) }
    }

    /// The signal Swift's backtracer announced (`*** Signal 4: Backtracing from …` is SIGILL).
    private static func backtracerSignal(in lines: [String]) -> String? {
        let prefix = "*** Signal "
        for line in lines {
            guard let range = line.range(of: prefix) else { continue }
            let digits = line[range.upperBound...].prefix { $0.isNumber }
            if let number = Int32(digits) { return ProcessEnd.signalName(number) }
        }
        return nil
    }

    private static func trimmed(_ line: String) -> String {
        var text = Substring(line).drop { $0 == " " || $0 == "\t" }
        // `==1234==ERROR: …`: the process id adds nothing to a verdict (and would differ between replays).
        if text.hasPrefix("=="), let end = text.dropFirst(2).range(of: "==") { text = text[end.upperBound...] }
        return text.count > 300 ? String(text.prefix(300)) + "…" : String(text)
    }
}
