import Foundation
import GuardCore
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Writes a whole file or nothing: the bytes go to a temporary file beside the destination, which then takes the
/// destination's name in one step. A failed write (a full disk, say) removes the temporary file and leaves the
/// destination as it was, never empty or cut short.
///
/// Nothing is synced to the disk: the guarantee is against a failed write or a killed process, not a machine that
/// loses power.
public enum AtomicFile {
    /// How long a write to a named pipe waits for a process to open it for reading, by default: 10 seconds.
    public static let pipeReaderWait: Double = 10

    /// Writes `data` to `path`. With `replacing`, an existing file is replaced (a symbolic link is followed, and a
    /// destination that is not a regular file, like `/dev/null`, is written in place); without it an existing file is
    /// an error (`EEXIST`) and is left alone.
    ///
    /// A named pipe is written in place once a process opens it for reading, which the write waits for at most
    /// `readerWait` seconds; then it fails (``FileWriteError/pipeUnread``) instead of blocking for good. So does a write
    /// whose reader closes the pipe early, if the process ignores `SIGPIPE` (`guard-stress` does; otherwise the signal
    /// ends the process).
    public static func write(
        _ data: Data, to path: String, replacing: Bool, readerWait: Double = pipeReaderWait
    ) throws(FileWriteError) {
        var destination = path
        var status = stat()
        if replacing, stat(path, &status) == 0 {
            switch status.st_mode & S_IFMT {
            case S_IFREG: break
            case S_IFIFO: return try writeIntoPipe(data, at: path, readerWait: readerWait)
            default: return try writeInPlace(data, to: path)
            }
            // Replace the file a link points to, not the link.
            if let resolved = realpath(path, nil) {
                destination = String(cString: resolved)
                free(resolved)
            }
        }
        let temporary = try writeTemporary(data, beside: destination)
        let placed = replacing ? rename(temporary, destination) : link(temporary, destination)
        let placeError = errno
        if !replacing || placed != 0 { unlink(temporary) }
        guard placed == 0 else { throw FileWriteError(path: path, code: placeError) }
    }

    /// Writes `data` into a new file named `.NAME.RANDOM.tmp` in `path`'s directory and returns its path (with `NAME`
    /// cut short if the whole would be longer than the file system allows a name to be).
    private static func writeTemporary(_ data: Data, beside path: String) throws(FileWriteError) -> String {
        let directory = ParentDirectory.of(path)
        let name = temporaryStem(of: (path as NSString).lastPathComponent, in: directory)
        var attempts = 0
        while true {
            let suffix = String(UInt32.random(in: 0...UInt32.max), radix: 16)
            let temporary = (directory as NSString).appendingPathComponent(".\(name).\(suffix).tmp")
            let descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o666)
            if descriptor < 0 {
                attempts += 1
                if errno == EEXIST, attempts < 100 { continue }
                throw FileWriteError(path: path, code: errno)
            }
            let code = writeAll(data, to: descriptor)
            let closed = close(descriptor) == 0 ? 0 : errno
            guard code == 0, closed == 0 else {
                unlink(temporary)
                throw FileWriteError(path: path, code: code != 0 ? code : closed)
            }
            return temporary
        }
    }

    /// `name`, or as much of its start as leaves room in a name `directory` accepts for the temporary file's other
    /// parts (`.`, `.RANDOM.tmp`: at most 14 bytes): a name the file system accepts gets a temporary file it accepts.
    private static func temporaryStem(of name: String, in directory: String) -> String {
        let limit = pathconf(directory, Int32(_PC_NAME_MAX))
        let room = (limit > 0 ? limit : 255) - 14
        guard name.utf8.count > room else { return name }
        var stem = ""
        for character in name {
            guard stem.utf8.count + character.utf8.count <= room else { break }
            stem.append(character)
        }
        return stem
    }

    /// Writes `data` over the file at `path` (a device or a pipe, which cannot be replaced).
    private static func writeInPlace(_ data: Data, to path: String) throws(FileWriteError) {
        let descriptor = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC)
        guard descriptor >= 0 else { throw FileWriteError(path: path, code: errno) }
        let code = writeAll(data, to: descriptor)
        let closed = close(descriptor) == 0 ? 0 : errno
        guard code == 0, closed == 0 else { throw FileWriteError(path: path, code: code != 0 ? code : closed) }
    }

    /// Writes `data` into the named pipe at `path` once a process opened it for reading, waiting at most
    /// `readerWait` seconds for one.
    private static func writeIntoPipe(_ data: Data, at path: String, readerWait: Double) throws(FileWriteError) {
        // Opening a pipe for writing blocks until someone reads it; without blocking it fails with ENXIO instead, so
        // the wait can end.
        let deadline = MonotonicClock.now &+ UInt64(min(max(0, readerWait), 1e6) * 1e9)
        var descriptor: Int32
        while true {
            descriptor = open(path, O_WRONLY | O_NONBLOCK | O_CLOEXEC)
            if descriptor >= 0 { break }
            let code = errno
            guard code == ENXIO || code == EINTR else { throw FileWriteError(path: path, code: code) }
            guard MonotonicClock.now < deadline else {
                throw FileWriteError(
                    path: path, code: ENXIO,
                    reason: "no process opened the pipe for reading within \(Self.seconds(readerWait))")
            }
            usleep(10_000)
        }
        // From here on a full pipe waits for its reader, as a pipe should.
        _ = fcntl(descriptor, F_SETFL, fcntl(descriptor, F_GETFL) & ~O_NONBLOCK)
        let code = writeAll(data, to: descriptor)
        close(descriptor)
        guard code == 0 else {
            let reason = code == EPIPE ? "the process reading the pipe closed it before the data was whole" : nil
            throw FileWriteError(path: path, code: code, reason: reason)
        }
    }

    /// `10 seconds`, `1 second`, `0.2 seconds`.
    private static func seconds(_ value: Double) -> String {
        let text = value == value.rounded() ? String(Int(value)) : String(value)
        return value == 1 ? "1 second" : "\(text) seconds"
    }

    /// Writes every byte of `data`; `0`, or the `errno` of the write that failed.
    private static func writeAll(_ data: Data, to descriptor: Int32) -> Int32 {
        data.withUnsafeBytes { DescriptorWriter.writeAll($0, to: descriptor) }
    }
}
