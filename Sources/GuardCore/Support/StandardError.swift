#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Writes to standard error without ever stopping the process. A closed descriptor, a pipe whose reader is gone (with
/// SIGPIPE ignored) or a full non-blocking pipe loses the text; `FileHandle.write(_:)` would trap instead, turning an
/// absorbed mistake's log line into a crash.
package enum StandardError {
    /// Writes `text` as it is (add the newline yourself), retrying interrupted and partial writes; gives up quietly
    /// on any other error.
    package static func write(_ text: String) {
        var text = text
        text.withUTF8 { bytes in
            guard var next = bytes.baseAddress else { return }
            var remaining = bytes.count
            while remaining > 0 {
                let written = systemWrite(2, next, remaining)
                if written > 0 {
                    next += written
                    remaining -= written
                } else if written < 0, errno == EINTR {
                    continue
                } else {
                    return
                }
            }
        }
    }

    private static func systemWrite(_ descriptor: Int32, _ bytes: UnsafePointer<UInt8>, _ count: Int) -> Int {
        #if canImport(Darwin)
        Darwin.write(descriptor, bytes, count)
        #elseif canImport(Musl)
        Musl.write(descriptor, bytes, count)
        #else
        Glibc.write(descriptor, bytes, count)
        #endif
    }
}
