import FaultInjector
import FaultInjectorTools
import Foundation

/// Checks on the files and directories guard-stress is asked to write, made before anything runs so that a bad
/// path is a usage error rather than a lost run, and made without touching what is there (an existing report stays
/// as it is until the new one is written whole).
enum OutputPath {
    /// Checks that `option`'s file `path` can be written: it is not a directory, and its directory exists (it is
    /// created if missing) and is writable. An existing file is left unchanged.
    static func checkFile(_ path: String, option: String) throws {
        guard !path.isEmpty else { throw UsageError("\(option) needs a file name") }
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), isDirectory.boolValue {
            throw UsageError("\(option) needs a file, but \(path) is a directory")
        }
        if let problem = writeProblem(path, createsDirectory: true) {
            throw UsageError("\(option): cannot write \(path): \(problem)")
        }
    }

    /// Why the file `path` could not be written (`it is a directory`, a name too long for the file system, ...),
    /// or `nil` if it can; with `createsDirectory`, a missing directory is created first. Nothing at `path` is
    /// changed.
    static func writeProblem(_ path: String, createsDirectory: Bool) -> String? {
        if let problem = PathLength.problem(path) { return problem }
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), isDirectory.boolValue {
            return "it is a directory"
        }
        let parent = directory(of: path)
        if createsDirectory, !FileManager.default.fileExists(atPath: parent) {
            try? FileManager.default.createDirectory(atPath: parent, withIntermediateDirectories: true)
        }
        guard FileManager.default.fileExists(atPath: parent, isDirectory: &isDirectory) else {
            return "its directory \(parent) does not exist" + (createsDirectory ? " and could not be created" : "")
        }
        guard isDirectory.boolValue else { return "\(parent) is not a directory" }
        guard access(parent, W_OK | X_OK) == 0 else { return "its directory \(parent) is not writable" }
        return nil
    }

    /// Checks that `option`'s directory `path` is a writable directory, or could be created as one: the nearest
    /// part of the path that exists must be a writable directory. Nothing is created (a campaign creates its seed
    /// file directory only when it has a file to put there).
    static func checkDirectory(_ path: String, option: String) throws {
        guard !path.isEmpty else { throw UsageError("\(option) needs a directory") }
        if let problem = PathLength.problem(path) { throw UsageError("\(option): cannot use \(path): \(problem)") }
        let room = Int(PATH_MAX) - 1 - seedFileNameRoom
        if path.utf8.count > room {
            throw UsageError(
                "\(option): cannot use \(path): the path is \(path.utf8.count) bytes long, and the files written in it need "
                    + "it to be at most \(room)")
        }
        var existing = path
        while !FileManager.default.fileExists(atPath: existing) {
            // A symbolic link that leads nowhere (to nothing, or round in a loop) is there, but is no directory.
            var link = stat()
            if lstat(existing, &link) == 0 {
                var target = stat()
                let code = stat(existing, &target) == 0 ? 0 : errno
                throw UsageError(
                    "\(option) needs a directory, but \(existing) is a symbolic link that leads nowhere"
                        + (code == 0 ? "" : " (\(String(cString: strerror(code))))"))
            }
            let parent = directory(of: existing)
            guard parent != existing else { break }
            existing = parent
        }
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: existing, isDirectory: &isDirectory), isDirectory.boolValue else {
            throw UsageError("\(option) needs a directory, but \(existing) is a file")
        }
        guard access(existing, W_OK | X_OK) == 0 else {
            throw UsageError("\(option): the directory \(existing) is not writable")
        }
    }

    /// Bytes a directory's path leaves for the names of the files guard-stress writes in it (`/` and a seed file's
    /// name, like `seed-guard-pct-18446744073709551615-12.running.json`, with room for a custom target's name).
    static let seedFileNameRoom = 128

    /// Whether `first` and `second` name the same file: the same path once made absolute, standardized (`.`, `..`)
    /// and stripped of symbolic links, or (both existing) the same file on disk (a hard link).
    static func sameFile(_ first: String, _ second: String) -> Bool {
        if resolved(first) == resolved(second) { return true }
        guard let one = try? FileManager.default.attributesOfItem(atPath: first),
            let other = try? FileManager.default.attributesOfItem(atPath: second),
            let oneNumber = one[.systemFileNumber] as? NSNumber, let otherNumber = other[.systemFileNumber] as? NSNumber
        else { return false }
        return oneNumber == otherNumber && (one[.systemNumber] as? NSNumber) == (other[.systemNumber] as? NSNumber)
    }

    /// Checks that a report of `kind` written to `option`'s file `path` destroys nothing: `path` holds nothing, an
    /// empty file, or an earlier report of the same kind; any other file (a seed file, a binary, a source file) is a
    /// usage error unless `force`. Called after the caller checked that `path` can be written
    /// (``checkFile(_:option:)`` or ``writeProblem(_:createsDirectory:)``). Returns the destination to write.
    static func checkReport(_ path: String, option: String, kind: ReportKind, force: Bool) throws -> ReportDestination {
        let destination = ReportDestination(path: path, kind: kind, force: force)
        if let conflict = destination.conflict {
            throw UsageError(
                "\(option) \(path) is \(conflict); a report replaces only an earlier report of the same kind or an empty "
                    + "file (pass --force to replace it anyway)")
        }
        return destination
    }

    /// Throws a usage error if `option`'s file `path` would collide with what a campaign writes into its seed file
    /// directory `seedDirectory` (`--out`): the directory itself, a directory it is in, or a name inside it (at any
    /// depth) that starts with `seed-`, as the campaign's seed files (`.json`, `.running.json`) and crash logs do. A
    /// report written there could replace a seed file the campaign wrote, or keep one from being written.
    static func checkNotSeedFile(_ path: String, option: String, seedDirectory: String) throws {
        let report = resolved(path)
        let seeds = resolved(seedDirectory)
        var isDirectory: ObjCBool = false
        let existingDirectory = FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) && isDirectory.boolValue
        // An existing directory is refused by checkFile, with the plainer reason that it is a directory.
        if !existingDirectory, report == seeds || seeds.hasPrefix(report + "/") {
            throw UsageError("\(option) \(path) names the seed file directory --out \(seedDirectory) (or a directory it is in)")
        }
        let name = report.split(separator: "/").last.map(String.init) ?? report
        guard name.hasPrefix("seed-"), report.hasPrefix(seeds == "/" ? "/" : seeds + "/") else { return }
        throw UsageError(
            "\(option) \(path) is inside the seed file directory --out \(seedDirectory) and named like the seed files "
                + "the campaign writes there (seed-...); name a report outside it, or not starting with seed-")
    }

    /// Throws a usage error if `option`'s file `path` is the input file `input`, which it would overwrite.
    static func checkNotInput(_ path: String, option: String, input: String) throws {
        guard sameFile(path, input) else { return }
        throw UsageError("\(option) \(path) names the input file \(input); guard-stress never overwrites its input")
    }

    /// The absolute, standardized path of `path` with symbolic links resolved (as far as they exist).
    private static func resolved(_ path: String) -> String {
        URL(fileURLWithPath: path).standardizedFileURL.resolvingSymlinksInPath().path
    }

    /// The directory `path` is in (`.` for a bare name).
    private static func directory(of path: String) -> String {
        ParentDirectory.of(path)
    }
}
