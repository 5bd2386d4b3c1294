import FaultInjector

/// Where ``ReportDestination/write(_:)`` put a report: at the path asked for, or in a new file beside it, and why.
public struct WrittenReport: Sendable, Equatable {
    /// The file that holds the whole report.
    public let path: String
    /// Why the report is not at the path asked for (a file that may not be replaced appeared there, or nobody read
    /// the pipe there), as a clause that names that path; `nil` when it is there.
    public let detour: String?

    /// A report written at `path`, or beside the path asked for because of `detour`.
    public init(path: String, detour: String? = nil) {
        self.path = path
        self.detour = detour
    }
}
