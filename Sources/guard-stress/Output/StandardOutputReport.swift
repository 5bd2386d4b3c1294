import Foundation

/// `--json -` (or `--junit -`): the report goes to standard output, and everything else the command prints there goes
/// to standard error instead, so standard output holds the report alone (`guard-stress run --json - | jq ...`).
struct StandardOutputReport {
    /// The original standard output, kept for the report.
    private let descriptor: Int32

    /// Moves the command's own standard output to standard error, keeping the original for the report.
    init() throws {
        fflush(nil)
        let kept = dup(STDOUT_FILENO)
        guard kept >= 0, dup2(STDERR_FILENO, STDOUT_FILENO) >= 0 else {
            throw UsageError("- (standard output) cannot be kept for the report: \(String(cString: strerror(errno)))")
        }
        descriptor = kept
    }

    /// Writes `data` whole to the original standard output.
    func write(_ data: Data) throws {
        fflush(nil)
        var offset = 0
        while offset < data.count {
            let written = data[data.startIndex + offset..<data.endIndex].withUnsafeBytes {
                Foundation.write(descriptor, $0.baseAddress, $0.count)
            }
            if written < 0 {
                if errno == EINTR { continue }
                throw CocoaError(.fileWriteUnknown, userInfo: [NSLocalizedDescriptionKey: String(cString: strerror(errno))])
            }
            offset += written
        }
    }
}
