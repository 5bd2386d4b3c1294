#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Writes text to a descriptor only as far as the descriptor can take it now, dropping the rest: the writer of
/// diagnostics on the thread that made a mistake, which must not wait for a log reader.
///
/// The descriptor's flags are left alone (making standard error non-blocking would change the file description every
/// process sharing it uses). Instead, before each `write(2)` of at most `PIPE_BUF` bytes (4096 on Linux, 512 on Apple
/// platforms), `poll(2)` is asked, without waiting, whether the descriptor can take data; if it cannot (a full pipe,
/// a descriptor that is not open, or on Linux a pipe whose reader is gone, so no SIGPIPE is raised), the rest of the
/// text is lost. A pipe reports itself writable only when `PIPE_BUF` bytes fit, and a write of at most `PIPE_BUF`
/// bytes to a pipe is atomic, so:
/// - on a pipe, a write never blocks, unless a writer that does not go through this writer (another process, or
///   other code writing to the same descriptor) fills the pipe between the check and the write;
/// - a line of at most `PIPE_BUF` bytes, newline included, is written whole or not at all, never interleaved with
///   another line written through this writer (writes through one writer are serialized);
/// - a longer line is written in `PIPE_BUF` pieces and may be cut; then the next text written through this writer
///   first ends the cut line with a newline, so it is never glued onto the fragment.
///
/// A regular file always reports itself writable: text reaches it whole, as with a plain write. So does a terminal,
/// unless its output is suspended (Ctrl-S) and its buffer full: then text is lost.
package final class LossyLineWriter: @unchecked Sendable {
    /// Serializes writes, reached by address only (``LockOperations/primitive(of:afterWords:)``): keep it first.
    private var lockPrimitive = LockPrimitive()
    private let descriptor: Int32
    /// Whether a line was cut after some of it was written: the next text starts with a newline. Guarded by the lock.
    private var endsACutLine = false

    /// The most bytes one write may carry: `PIPE_BUF`, the largest write a pipe takes atomically.
    package static let pieceLimit = Int(PIPE_BUF)

    private static let newline = UInt8(ascii: "\n")

    /// A writer to `descriptor`, which it does not own (never closes).
    package init(descriptor: Int32) {
        self.descriptor = descriptor
        // Taken without announcing it, unlike a `Lock`: the critical section calls no GuardCore code, so it is no
        // schedule point.
        LockOperations.initialize(LockOperations.primitive(of: self))
    }

    deinit {
        LockOperations.destroy(LockOperations.primitive(of: self))
    }

    /// Writes as much of `text` as the descriptor takes without waiting (add the newline yourself); see the type's
    /// documentation for what is written whole.
    package func write(_ text: String) {
        var text = text
        text.withUTF8 { bytes in
            let primitive = LockOperations.primitive(of: self)
            LockOperations.lock(primitive)
            defer { LockOperations.unlock(primitive) }
            writeLocked(bytes)
        }
    }

    private func writeLocked(_ bytes: UnsafeBufferPointer<UInt8>) {
        guard !bytes.isEmpty else { return }
        if endsACutLine {
            let newline = [Self.newline]
            guard newline.withUnsafeBufferPointer({ writePiece($0) }) == 1 else { return }
            endsACutLine = false
        }
        var offset = 0
        while offset < bytes.count {
            let end = Self.pieceEnd(in: bytes, from: offset)
            let written = writePiece(UnsafeBufferPointer(rebasing: bytes[offset..<end]))
            guard written > 0 else { break }
            offset += written
        }
        if offset > 0, offset < bytes.count, bytes[offset - 1] != Self.newline,
            bytes[offset...].contains(Self.newline)
        {
            endsACutLine = true
        }
    }

    /// Where the piece starting at `start` ends: all the rest if it fits in one write; otherwise after the last
    /// newline within the limit, so whole lines stay whole; a line longer than the limit is cut at the limit, moved
    /// back to the start of a UTF-8 character.
    static func pieceEnd(in bytes: UnsafeBufferPointer<UInt8>, from start: Int) -> Int {
        let limit = start + pieceLimit
        guard limit < bytes.count else { return bytes.count }
        if let lastNewline = bytes[start..<limit].lastIndex(of: newline) { return lastNewline + 1 }
        var end = limit
        while end > start + 1, bytes[end] & 0b1100_0000 == 0b1000_0000 { end -= 1 }
        return end
    }

    /// Writes `piece` if the descriptor can take data now: the bytes written, or 0 if none were (not ready, or an
    /// error).
    private func writePiece(_ piece: UnsafeBufferPointer<UInt8>) -> Int {
        guard isReady(), let base = piece.baseAddress else { return 0 }
        while true {
            let written = DescriptorWriter.systemWrite(descriptor, base, piece.count)
            if written < 0, errno == EINTR { continue }
            return max(written, 0)
        }
    }

    /// Whether `poll(2)` reports the descriptor writable right now, without an error, hang-up or invalid descriptor.
    private func isReady() -> Bool {
        var request = pollfd(fd: descriptor, events: Int16(POLLOUT), revents: 0)
        while true {
            let status = poll(&request, 1, 0)
            if status < 0, errno == EINTR { continue }
            guard status == 1 else { return false }
            let failure = Int16(POLLERR) | Int16(POLLHUP) | Int16(POLLNVAL)
            return request.revents & Int16(POLLOUT) != 0 && request.revents & failure == 0
        }
    }
}
