import Foundation
import XCTest

#if os(Linux)
/// Runs one test of this very test binary in a child process, for behaviour that stops a process (a trap, or a crash
/// that a fix must prevent): the parent test survives to check how the child ended and what it wrote.
struct ChildTestProcess {
    /// How the child ended and what it wrote.
    struct Result {
        let status: Int32
        let reason: Process.TerminationReason
        let standardOutput: String
        let standardError: String

        /// Whether the child exited normally with status 0 (every test it ran passed).
        var exitedCleanly: Bool { reason == .exit && status == 0 }

        /// Both outputs, for a failure message.
        var transcript: String { "status \(status) (\(reason))\nstdout:\n\(standardOutput)\nstderr:\n\(standardError)" }
    }

    /// The test to run, `Module.Class/testMethod`.
    let test: String
    /// Variables added to the parent's environment.
    var environment: [String: String] = [:]
    /// How long the child may take before it is terminated (and the parent test fails).
    var timeout: TimeInterval = 120
    /// Where the child's standard error goes instead of a file the result reads (its ``Result/standardError`` is
    /// then empty): a pipe the parent test reads, or leaves unread.
    var standardErrorPipe: Pipe? = nil

    /// Starts the child, waits for it, and returns how it ended.
    func run(file: StaticString = #filePath, line: UInt = #line) throws -> Result {
        let executable = try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")
        let directory = FileManager.default.temporaryDirectory
        let outURL = directory.appendingPathComponent("kvoguard-child-\(UUID().uuidString).out")
        let errURL = directory.appendingPathComponent("kvoguard-child-\(UUID().uuidString).err")
        XCTAssertTrue(FileManager.default.createFile(atPath: outURL.path, contents: nil), file: file, line: line)
        XCTAssertTrue(FileManager.default.createFile(atPath: errURL.path, contents: nil), file: file, line: line)
        defer {
            try? FileManager.default.removeItem(at: outURL)
            try? FileManager.default.removeItem(at: errURL)
        }
        let out = try FileHandle(forWritingTo: outURL)
        let err = try FileHandle(forWritingTo: errURL)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = [test]
        var childEnvironment = ProcessInfo.processInfo.environment
        childEnvironment.merge(environment) { _, new in new }
        // No backtrace: it is slow and long, and the message is what matters.
        childEnvironment["SWIFT_BACKTRACE"] = "enable=no"
        process.environment = childEnvironment
        process.standardOutput = out
        process.standardError = standardErrorPipe ?? err
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let finished = DispatchSemaphore(value: 0)
        DispatchQueue.global().async {
            process.waitUntilExit()
            finished.signal()
        }
        if finished.wait(timeout: .now() + timeout) == .timedOut {
            process.terminate()
            XCTFail("the child did not finish within \(Int(timeout)) s", file: file, line: line)
            process.waitUntilExit()
        }
        try out.close()
        try err.close()
        return Result(
            status: process.terminationStatus, reason: process.terminationReason,
            standardOutput: try String(contentsOf: outURL, encoding: .utf8),
            standardError: try String(contentsOf: errURL, encoding: .utf8))
    }
}
#endif
