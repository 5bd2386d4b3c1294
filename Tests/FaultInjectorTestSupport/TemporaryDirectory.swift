import Foundation
import XCTest

/// A fresh directory under the system's temporary directory, removed again by ``remove()``.
package struct TemporaryDirectory {
    package let path: String

    package init(_ label: String = "fi-tests") throws {
        let base = (NSTemporaryDirectory() as NSString).appendingPathComponent(
            "\(label)-\(ProcessInfo.processInfo.processIdentifier)-\(UUID().uuidString)")
        try FileManager.default.createDirectory(atPath: base, withIntermediateDirectories: true)
        path = base
    }

    /// The path of `name` inside the directory.
    package func file(_ name: String) -> String {
        (path as NSString).appendingPathComponent(name)
    }

    /// Writes `text` to `name` and returns its path.
    @discardableResult
    package func write(_ text: String, to name: String) throws -> String {
        let target = file(name)
        try Data(text.utf8).write(to: URL(fileURLWithPath: target))
        return target
    }

    /// Writes `data` to `name` and returns its path.
    @discardableResult
    package func write(_ data: Data, to name: String) throws -> String {
        let target = file(name)
        try data.write(to: URL(fileURLWithPath: target))
        return target
    }

    /// The names of the files in the directory, sorted.
    package func contents() throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: path).sorted()
    }

    package func remove() {
        try? FileManager.default.removeItem(atPath: path)
    }
}
