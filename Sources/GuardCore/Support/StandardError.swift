/// Writes to standard error without ever trapping: a closed descriptor or a pipe whose reader is gone (with SIGPIPE
/// ignored) loses the text, where `FileHandle.write(_:)` would trap, turning an absorbed mistake's log line into a
/// crash.
package enum StandardError {
    /// Writes `text` as it is (add the newline yourself), retrying interrupted and partial writes; gives up quietly
    /// on any other error. Waits while a blocking pipe is full: for a program's own output (guard-stress), whose
    /// reader is expected to read it. Diagnostics use ``writeWithoutWaiting(_:)``.
    package static func write(_ text: String) {
        var text = text
        text.withUTF8 { bytes in _ = DescriptorWriter.writeAll(UnsafeRawBufferPointer(bytes), to: 2) }
    }

    /// Writes as much of `text` as standard error takes now and loses the rest, as ``LossyLineWriter`` describes:
    /// never waits for a full pipe, and a line of at most `PIPE_BUF` bytes is written whole or not at all.
    package static func writeWithoutWaiting(_ text: String) {
        diagnostics.write(text)
    }

    private static let diagnostics = LossyLineWriter(descriptor: 2)
}
