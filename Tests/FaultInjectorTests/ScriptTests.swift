import Foundation
import XCTest

/// `scripts/replay.sh` and `scripts/stress.sh`, run with a stand-in `swift` first on the PATH (no real build).
final class ScriptTests: XCTestCase {
    private var directory: TemporaryDirectory!

    override func setUpWithError() throws {
        directory = try TemporaryDirectory("fi-scripts")
    }

    override func tearDown() {
        directory?.remove()
        directory = nil
    }

    /// The repository: two levels above this file.
    private var repository: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    }

    /// Runs `script` with `arguments` in the test directory, with a `swift` that fails; its exit status and stderr.
    private func runWithFailingBuild(_ script: String, _ arguments: [String]) throws -> (status: Int32, stderr: String) {
        let bin = directory.file("bin")
        try FileManager.default.createDirectory(atPath: bin, withIntermediateDirectories: true)
        let swift = try directory.write("#!/bin/sh\necho 'error: a stand-in build failure' >&2\nexit 1\n", to: "bin/swift")
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: swift)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/bash")
        process.arguments = [repository.appendingPathComponent("scripts/\(script)").path] + arguments
        process.currentDirectoryURL = URL(fileURLWithPath: directory.path)
        var environment = ProcessInfo.processInfo.environment
        environment["PATH"] = bin + ":" + (environment["PATH"] ?? "/usr/bin:/bin")
        process.environment = environment
        let errorPipe = Pipe()
        process.standardError = errorPipe
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        let stderr = String(decoding: errorPipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        return (process.terminationStatus, stderr)
    }

    /// A failed build is exit 2 (the documented "could not run"), not 1, which reads as "reproduced" or "violated".
    func testAFailedBuildExitsTwo() throws {
        let replay = try runWithFailingBuild("replay.sh", ["seed.json"])
        XCTAssertEqual(replay.status, 2, replay.stderr)
        XCTAssertTrue(replay.stderr.contains("the build of guard-stress failed"), replay.stderr)
        let stress = try runWithFailingBuild("stress.sh", ["1"])
        XCTAssertEqual(stress.status, 2, stress.stderr)
        XCTAssertTrue(stress.stderr.contains("the build of guard-stress failed"), stress.stderr)
    }
}
