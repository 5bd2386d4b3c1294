import FaultInjector
import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Where a report goes, written so that no data is lost: the report replaces only what holds nothing of anyone's
/// (no file, an empty file, a device or pipe, which are written in place) or an earlier report of the same
/// ``ReportKind``; with `force`, any file. Check ``conflict`` before the work that produces the report; if a file
/// that may not be replaced appears at the path meanwhile, ``write(_:)`` keeps it and puts the report beside it
/// under a free name. A named pipe is written once a process reads it; if none does in time, the report goes beside
/// it too.
public struct ReportDestination: Sendable {
    /// The path asked for.
    public let path: String
    /// What is written there.
    public let kind: ReportKind
    /// Whether any file at the path may be replaced (`--force`).
    public let force: Bool
    /// How long a write to a named pipe at the path waits for a process to read it (``AtomicFile/pipeReaderWait``).
    public let readerWait: Double

    /// A destination for a report of `kind` at `path`; with `force`, any file there may be replaced. A named pipe
    /// there is written once a process reads it, which the write waits `readerWait` seconds for.
    public init(path: String, kind: ReportKind, force: Bool = false, readerWait: Double = AtomicFile.pipeReaderWait) {
        self.path = path
        self.kind = kind
        self.force = force
        self.readerWait = readerWait
    }

    /// Why writing the report at ``path`` would destroy what is there (`a guard-stress seed file`, `an executable`,
    /// `a directory`, ...), or `nil` if it would not: nothing is there, or something writing may replace.
    public var conflict: String? {
        guard !force else { return nil }
        var status = stat()
        guard stat(path, &status) == 0 else {
            // Nothing there, or a symbolic link to nothing: writing would replace the link itself.
            var link = stat()
            guard lstat(path, &link) == 0, link.st_mode & S_IFMT == S_IFLNK else { return nil }
            return "a symbolic link to something that does not exist"
        }
        switch status.st_mode & S_IFMT {
        case S_IFREG: break
        case S_IFDIR: return "a directory"
        case S_IFBLK: return "a block device"
        default: return nil  // a character device (/dev/null), a pipe or a socket: written in place, nothing replaced
        }
        guard status.st_size > 0 else { return nil }
        guard status.st_size <= ReportKind.largestReport else { return "a file of \(status.st_size) bytes that is not \(kind.description)" }
        guard let data = FileManager.default.contents(atPath: path) else { return "a file guard-stress cannot read" }
        if kind.recognizes(data) { return nil }
        return kind.describeOther(data, executable: status.st_mode & (S_IXUSR | S_IXGRP | S_IXOTH) != 0)
    }

    /// Writes `data` whole (``AtomicFile``) and returns where: ``path``, replacing only what ``conflict`` allows.
    /// The report goes beside ``path``, as `NAME.2.EXT` (or the first free number), and says why
    /// (``WrittenReport/detour``), rather than being lost, if something that may not be replaced is at ``path`` by
    /// now, or if ``path`` is a named pipe that no process read within ``readerWait`` seconds or whose reader closed
    /// it early.
    public func write(_ data: Data) throws(FileWriteError) -> WrittenReport {
        for _ in 0..<3 {
            if conflict != nil { break }
            var status = stat()
            let occupied = force || stat(path, &status) == 0
            do {
                // Into an empty place without replacing: if something appeared meanwhile, look at it again.
                try AtomicFile.write(data, to: path, replacing: occupied, readerWait: readerWait)
                return WrittenReport(path: path)
            } catch where error.fileExists && !occupied {
                continue
            } catch where error.pipeUnread {
                return WrittenReport(path: try writeBeside(data), detour: "\(error.description)")
            }
        }
        return WrittenReport(
            path: try writeBeside(data),
            detour: "\(path) appeared meanwhile and may not be replaced; it was left as it is")
    }

    /// Writes `data` to the first free `NAME.N.EXT` beside ``path`` (N from 2 to 10,000), never replacing anything.
    private func writeBeside(_ data: Data) throws(FileWriteError) -> String {
        try NumberedFileName.write(data, numbers: 2...10_000) { Self.numbered(path, $0) }
    }

    /// `report.2.json` for `report.json`, `report.2` for `report`, `dir.d/report.2` for `dir.d/report`.
    static func numbered(_ path: String, _ number: Int) -> String {
        let slash = path.lastIndex(of: "/").map { path.index(after: $0) } ?? path.startIndex
        if let dot = path[slash...].lastIndex(of: "."), dot != slash {
            return "\(path[..<dot]).\(number)\(path[dot...])"
        }
        return "\(path).\(number)"
    }
}
