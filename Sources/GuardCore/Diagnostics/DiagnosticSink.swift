import Foundation

/// Receives the guard's ``GuardDiagnostic`` events. Sinks are called on the thread where the mistake happened,
/// outside every guard lock, and must be thread-safe.
public protocol DiagnosticSink: Sendable {
    /// Handles one event.
    func record(_ event: GuardDiagnostic)
}

/// One line per event to standard error: the default sink where there is no unified logging (Linux); on Apple
/// platforms the default is ``SystemLogSink``.
public struct StandardErrorSink: DiagnosticSink {
    /// Creates the sink.
    public init() {}

    /// Writes `event.description` as one line, never waiting for a reader: if standard error cannot take the line
    /// now (a full pipe, a descriptor that is not open), the line is lost. The descriptor's flags are left alone;
    /// before each write, `poll(2)` says whether standard error can take data. On a pipe:
    /// - a line of at most `PIPE_BUF` bytes (4096 on Linux, 512 on Apple platforms) is written whole or lost whole,
    ///   never interleaved with another diagnostic line;
    /// - a longer line may be cut, and the next line then starts on a line of its own;
    /// - the write does not block, unless something else writing to the same pipe (another process, or other code of
    ///   this one) fills it between the check and the write;
    /// - on Linux, a pipe whose reader is gone loses the line without a write, so no SIGPIPE is raised (elsewhere the
    ///   write raises SIGPIPE unless the process ignores it, as any write does).
    ///
    /// A regular file gets every line, and so does a terminal whose output is not suspended (Ctrl-S).
    public func record(_ event: GuardDiagnostic) {
        StandardError.writeWithoutWaiting(event.description + "\n")
    }
}

/// Counts events by kind and keeps them, for tests and for the stress harness.
public final class CountingSink: DiagnosticSink, @unchecked Sendable {
    private let lock = Lock()
    private var countsByKind: [GuardDiagnostic.Kind: Int] = [:]
    private var recorded: [GuardDiagnostic] = []
    private let keepsEvents: Bool

    /// Creates an empty sink; with `keepsEvents: false` it only counts (for long stress runs).
    public init(keepsEvents: Bool = true) {
        self.keepsEvents = keepsEvents
    }

    /// Counts (and keeps) the event.
    public func record(_ event: GuardDiagnostic) {
        lock.withLock {
            countsByKind[event.kind, default: 0] += 1
            if keepsEvents { recorded.append(event) }
        }
    }

    /// The events so far, in the order they were recorded (empty if the sink does not keep events).
    public var events: [GuardDiagnostic] {
        lock.withLock { recorded }
    }

    /// How many events of `kind` were recorded.
    public func count(of kind: GuardDiagnostic.Kind) -> Int {
        lock.withLock { countsByKind[kind, default: 0] }
    }

    /// Counts by kind; kinds never seen are absent.
    public var counts: [GuardDiagnostic.Kind: Int] {
        lock.withLock { countsByKind }
    }

    /// All events counted, of every kind.
    public var total: Int {
        lock.withLock { countsByKind.values.reduce(0, +) }
    }

    /// Forgets everything recorded so far.
    public func reset() {
        lock.withLock {
            countsByKind = [:]
            recorded = []
        }
    }
}

/// Forwards every event to a closure (to your logger, analytics, or a test).
public struct ClosureSink: DiagnosticSink {
    private let body: @Sendable (GuardDiagnostic) -> Void

    /// Creates a sink that calls `body` for each event.
    public init(_ body: @escaping @Sendable (GuardDiagnostic) -> Void) {
        self.body = body
    }

    /// Calls the closure.
    public func record(_ event: GuardDiagnostic) {
        body(event)
    }
}
