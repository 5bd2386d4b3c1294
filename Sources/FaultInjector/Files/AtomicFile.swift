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
    /// Writes `data` to `path`. With `replacing`, an existing file is replaced (a symbolic link is followed, and a
    /// destination that is not a regular file, like `/dev/null`, is written in place); without it an existing file is
    /// an error (`EEXIST`) and is left alone.
    public static func write(_ data: Data, to path: String, replacing: Bool) throws(FileWriteError) {
        var destination = path
        var status = stat()
        if replacing, stat(path, &status) == 0 {
            guard status.st_mode & S_IFMT == S_IFREG else { return try writeInPlace(data, to: path) }
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

    /// Writes every byte of `data`; `0`, or the `errno` of the write that failed.
    private static func writeAll(_ data: Data, to descriptor: Int32) -> Int32 {
        data.withUnsafeBytes { DescriptorWriter.writeAll($0, to: descriptor) }
    }
}
