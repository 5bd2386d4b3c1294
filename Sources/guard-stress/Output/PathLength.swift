import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The file system's limits on names: a file name longer than its directory allows (`NAME_MAX`, asked of the file
/// system with `pathconf`) or a path longer than `PATH_MAX` cannot be created, so an output path is checked against
/// them before any work is done.
enum PathLength {
    /// Why `path` is too long to create (naming the part that is, its length in bytes and the limit), or `nil`.
    static func problem(_ path: String) -> String? {
        let pathBytes = path.utf8.count
        if pathBytes >= Int(PATH_MAX) {
            return "the path is \(pathBytes) bytes long; the system allows at most \(Int(PATH_MAX) - 1)"
        }
        // The limit is asked of the deepest directory on the path that exists (a missing one would be created in it).
        var directory = path.hasPrefix("/") ? "/" : ""
        var existing = path.hasPrefix("/") ? "/" : "."
        for component in path.split(separator: "/", omittingEmptySubsequences: true) {
            let bytes = component.utf8.count
            let limit = nameLimit(in: existing)
            if bytes > limit {
                let shown = component.count > 40
                    ? String(component.prefix(20)) + "…" + String(component.suffix(12)) : String(component)
                return "the name \(shown) is \(bytes) bytes long; the file system allows at most \(limit)"
            }
            directory += (directory.isEmpty || directory == "/" ? "" : "/") + component
            var isDirectory: ObjCBool = false
            if FileManager.default.fileExists(atPath: directory, isDirectory: &isDirectory), isDirectory.boolValue {
                existing = directory
            }
        }
        return nil
    }

    /// The longest file name (in bytes) allowed in the existing `directory` (255 if the system does not say).
    private static func nameLimit(in directory: String) -> Int {
        let limit = pathconf(directory, Int32(_PC_NAME_MAX))
        return limit > 0 ? limit : 255
    }
}
