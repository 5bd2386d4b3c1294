/// The process-wide diagnostic sink, used by every ``ObservationController`` that has no sink of its own.
public enum GuardDiagnostics {
    private static let current = Protected<any DiagnosticSink>(defaultSink)

    /// Where events go until you replace ``sink``: ``SystemLogSink`` (subsystem `KVOGuard`, category `guard`) on Apple
    /// platforms, so they show in Console and Instruments; ``StandardErrorSink`` elsewhere.
    public static var defaultSink: any DiagnosticSink {
        #if canImport(os)
        return SystemLogSink()
        #else
        return StandardErrorSink()
        #endif
    }

    /// The process-wide sink; ``defaultSink`` until you replace it. Thread-safe.
    public static var sink: any DiagnosticSink {
        get { current.current }
        set {
            // The replaced sink is the user's: release it after unlocking.
            let replaced = current.exchange(newValue)
            withExtendedLifetime(replaced) {}
        }
    }

    /// Runs `body` with `sink` as the process-wide sink, then restores the previous one. Meant for tests: two
    /// threads doing this at once can restore each other's sink.
    public static func withSink<Result>(_ sink: any DiagnosticSink, _ body: () throws -> Result) rethrows -> Result {
        let previous = current.exchange(sink)
        defer {
            let replaced = current.exchange(previous)
            withExtendedLifetime(replaced) {}
        }
        return try body()
    }
}
