import Foundation

/// Making the directory a file goes into, with the system's reason when that fails (Foundation's error for it reads
/// "The operation could not be completed" on Linux).
enum DirectoryCreation {
    /// Creates the directory `path` and any missing parents, like `mkdir -p`; an existing directory is fine. Throws a
    /// ``FileWriteError`` naming the directory that could not be made and why (`Not a directory`, `Permission
    /// denied`, ...).
    static func ensure(_ path: String) throws {
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) {
            guard isDirectory.boolValue else { throw FileWriteError(path: path, code: ENOTDIR) }
            return
        }
        // On the text alone: Foundation's `deletingLastPathComponent` traps on a one-character name.
        let parent = ParentDirectory.of(path)
        if parent != path { try ensure(parent) }
        if mkdir(path, 0o777) != 0 {
            let code = errno
            guard code == EEXIST else { throw FileWriteError(path: path, code: code) }
        }
    }
}
