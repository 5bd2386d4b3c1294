/// Writes to standard error without ever stopping the process. A closed descriptor, a pipe whose reader is gone (with
/// SIGPIPE ignored) or a full non-blocking pipe loses the text; `FileHandle.write(_:)` would trap instead, turning an
/// absorbed mistake's log line into a crash.
package enum StandardError {
    /// Writes `text` as it is (add the newline yourself), retrying interrupted and partial writes; gives up quietly
    /// on any other error.
    package static func write(_ text: String) {
        var text = text
        text.withUTF8 { bytes in _ = DescriptorWriter.writeAll(UnsafeRawBufferPointer(bytes), to: 2) }
    }
}
