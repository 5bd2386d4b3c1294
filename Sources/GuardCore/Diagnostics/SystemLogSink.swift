#if canImport(os)
import Foundation
import os

/// Writes each event to Apple's unified logging system, where Console, Instruments and `log stream` show it: the
/// default sink on Apple platforms (see ``GuardDiagnostics/defaultSink``). Apple platforms only.
///
/// Events are logged at the error level, subsystem `KVOGuard` and category `guard` unless you pass your own (your
/// app's subsystem keeps them next to your logs). Their text is public: it holds type names, object addresses, key
/// paths and call sites, never observed values. Find them with `log stream --predicate 'subsystem == "KVOGuard"'`.
/// Uses `os.Logger` on iOS 14 / macOS 11 / tvOS 14 / watchOS 7 and later, `os_log` before.
public struct SystemLogSink: DiagnosticSink {
    /// The log's subsystem.
    public let subsystem: String
    /// The log's category.
    public let category: String
    private let log: SharedLog

    /// Creates a sink logging under `subsystem` and `category`.
    public init(subsystem: String = "KVOGuard", category: String = "guard") {
        self.subsystem = subsystem
        self.category = category
        self.log = SharedLog(OSLog(subsystem: subsystem, category: category))
    }

    /// Logs `event.description` at the error level.
    public func record(_ event: GuardDiagnostic) {
        if #available(macOS 11.0, iOS 14.0, tvOS 14.0, watchOS 7.0, *) {
            Logger(log.log).error("\(event.description, privacy: .public)")
        } else {
            os_log("%{public}@", log: log.log, type: .error, event.description as NSString)
        }
    }
}

/// An `OSLog` shared across threads; `OSLog` is thread-safe.
private final class SharedLog: @unchecked Sendable {
    let log: OSLog

    init(_ log: OSLog) {
        self.log = log
    }
}
#endif
