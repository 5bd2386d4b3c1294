import Foundation

/// The package's root folder: the nearest folder above this file that holds `Package.swift`, so a test finds the
/// repository's files wherever its own file sits.
package enum PackageRoot {
    package static let url: URL = {
        var folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        while !FileManager.default.fileExists(atPath: folder.appendingPathComponent("Package.swift").path) {
            let parent = folder.deletingLastPathComponent()
            precondition(parent.path != folder.path, "no Package.swift above \(#filePath)")
            folder = parent
        }
        return folder
    }()
}
