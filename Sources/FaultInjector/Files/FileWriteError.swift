import Foundation

/// Why a file could not be written: the path and the system's reason, as one line.
public struct FileWriteError: Error, Sendable, Equatable, CustomStringConvertible, LocalizedError {
    /// The file that was to be written.
    public let path: String
    /// The `errno` of the step that failed.
    public let code: Int32

    /// Whether the file was not written because one already exists (only when not replacing).
    public var fileExists: Bool { code == EEXIST }

    /// `cannot write PATH: No space left on device`.
    public var description: String { "cannot write \(path): \(String(cString: strerror(code)))" }

    /// The same as ``description`` (what `localizedDescription` shows).
    public var errorDescription: String? { description }
}
