import Foundation
import XCTest

/// The `guard-stress` executable, run as a subprocess by the command-line tests. `swift build` and `swift test`
/// build it next to the test bundle (`.build/<config>/guard-stress` beside `.build/<config>/KVOGuardPackageTests.xctest`).
package enum GuardStressProcess {
    /// How a run ended and what it printed.
    package struct Outcome {
        package let status: Int32
        package let reason: Process.TerminationReason
        package let stdout: String
        package let stderr: String

        package var stderrLines: [String] { stderr.split(separator: "\n", omittingEmptySubsequences: true).map(String.init) }
        package var exitedNormally: Bool { reason == .exit }
    }

    /// The line every usage error ends with.
    package static let hint = "Run 'guard-stress --help' for usage."

    /// The guard-stress binary beside the test bundle; fails the test (with how to build it) if it is missing.
    package static func executable(file: StaticString = #filePath, line: UInt = #line) throws -> URL {
        #if os(macOS)
        // On macOS the test bundle is loaded by Xcode's `xctest` runner, so argument 0 is the runner, not the bundle.
        let bundlePath =
            Bundle.allBundles.first { $0.bundlePath.hasSuffix(".xctest") }?.bundlePath ?? CommandLine.arguments[0]
        #else
        let bundlePath = CommandLine.arguments[0]
        #endif
        let bundle = URL(fileURLWithPath: bundlePath, relativeTo: URL(fileURLWithPath: FileManager.default.currentDirectoryPath))
            .standardizedFileURL
        let candidate = bundle.deletingLastPathComponent().appendingPathComponent("guard-stress")
        guard FileManager.default.isExecutableFile(atPath: candidate.path) else {
            XCTFail(
                "guard-stress is not built at \(candidate.path) (test bundle: \(bundlePath)). Build it with "
                    + "'swift build --build-tests' (or 'swift build --product guard-stress') using the same --scratch-path "
                    + "as 'swift test'.", file: file, line: line)
            throw CocoaError(.fileNoSuchFile)
        }
        return candidate
    }

    /// Runs guard-stress with `arguments` in `directory` (through `launcher`, a command and its arguments that run
    /// the program named after them, if given); kills it after `timeout` seconds. Unless `allowsCrash`, a
    /// guard-stress that did not exit normally fails the test.
    package static func run(
        _ arguments: [String], in directory: TemporaryDirectory, timeout: Double = 30, allowsCrash: Bool = false,
        launcher: [String] = [], file: StaticString = #filePath, line: UInt = #line
    ) throws -> Outcome {
        let process = Process()
        let program = try executable(file: file, line: line)
        if let command = launcher.first {
            process.executableURL = URL(fileURLWithPath: command)
            process.arguments = Array(launcher.dropFirst()) + [program.path] + arguments
        } else {
            process.executableURL = program
            process.arguments = arguments
        }
        process.currentDirectoryURL = URL(fileURLWithPath: directory.path)
        let stdoutPath = directory.file("stdout-\(UUID().uuidString).txt")
        let stderrPath = directory.file("stderr-\(UUID().uuidString).txt")
        XCTAssertTrue(FileManager.default.createFile(atPath: stdoutPath, contents: nil), file: file, line: line)
        XCTAssertTrue(FileManager.default.createFile(atPath: stderrPath, contents: nil), file: file, line: line)
        let stdout = try XCTUnwrap(FileHandle(forWritingAtPath: stdoutPath))
        let stderr = try XCTUnwrap(FileHandle(forWritingAtPath: stderrPath))
        defer {
            try? stdout.close()
            try? stderr.close()
            try? FileManager.default.removeItem(atPath: stdoutPath)
            try? FileManager.default.removeItem(atPath: stderrPath)
        }
        process.standardOutput = stdout
        process.standardError = stderr
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let deadline = Date(timeIntervalSinceNow: timeout)
        while process.isRunning, Date() < deadline { usleep(20_000) }
        if process.isRunning {
            process.terminate()
            process.waitUntilExit()
            XCTFail("guard-stress \(arguments.joined(separator: " ")) did not finish within \(timeout) s", file: file, line: line)
        }
        process.waitUntilExit()
        let out = String(decoding: try Data(contentsOf: URL(fileURLWithPath: stdoutPath)), as: UTF8.self)
        let err = String(decoding: try Data(contentsOf: URL(fileURLWithPath: stderrPath)), as: UTF8.self)
        if !allowsCrash {
            XCTAssertEqual(process.terminationReason, .exit, "guard-stress crashed: \(err)", file: file, line: line)
        }
        return Outcome(status: process.terminationStatus, reason: process.terminationReason, stdout: out, stderr: err)
    }

    /// Asserts a usage error: exit 2, one error line naming `phrase`, at most the help hint after it, nothing on
    /// stdout.
    package static func assertUsageError(
        _ outcome: Outcome, mentioning phrase: String, file: StaticString = #filePath, line: UInt = #line
    ) {
        XCTAssertEqual(outcome.status, 2, outcome.stderr, file: file, line: line)
        XCTAssertTrue(outcome.exitedNormally, file: file, line: line)
        let lines = outcome.stderrLines
        XCTAssertTrue((1...2).contains(lines.count), "stderr: \(outcome.stderr)", file: file, line: line)
        XCTAssertTrue(lines.first?.hasPrefix("guard-stress: ") ?? false, "stderr: \(outcome.stderr)", file: file, line: line)
        XCTAssertTrue(lines.first?.contains(phrase) ?? false, "\"\(lines.first ?? "")\" does not mention \"\(phrase)\"", file: file, line: line)
        if lines.count == 2 { XCTAssertEqual(lines[1], hint, file: file, line: line) }
        XCTAssertEqual(outcome.stdout, "", file: file, line: line)
    }
}
