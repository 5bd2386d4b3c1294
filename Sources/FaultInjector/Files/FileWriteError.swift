import Foundation

/// Why a file could not be written: the path and the system's reason, as one line.
public struct FileWriteError: Error, Sendable, Equatable, CustomStringConvertible, LocalizedError {
    /// The file that was to be written.
    public let path: String
    /// The `errno` of the step that failed.
    public let code: Int32
    /// What went wrong in words of its own, when the system's text for ``code`` would not say it (no process
    /// opened a pipe for reading, say); `nil` to use the system's text.
    public let reason: String?

    /// The failure `code` (an `errno`) writing `path`, described by `reason` or else by the system's text.
    public init(path: String, code: Int32, reason: String? = nil) {
        self.path = path
        self.code = code
        self.reason = reason
    }

    /// Whether the file was not written because one already exists (only when not replacing).
    public var fileExists: Bool { code == EEXIST }

    /// Whether the destination is a pipe that nobody read: no process opened it for reading in time (`ENXIO`), or
    /// the reader closed it before the data was whole (`EPIPE`).
    public var pipeUnread: Bool { code == ENXIO || code == EPIPE }

    /// `cannot write PATH: No space left on device`.
    public var description: String { "cannot write \(path): \(reason ?? String(cString: strerror(code)))" }

    /// The same as ``description`` (what `localizedDescription` shows).
    public var errorDescription: String? { description }
}
