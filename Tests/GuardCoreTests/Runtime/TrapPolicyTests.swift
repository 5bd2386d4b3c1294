import Foundation
import GuardCore
import XCTest

/// The environment variable that makes ``TrapChildTests`` misuse the runtime under the default policy.
private let trapChildVariable = "KVOGUARD_TRAP_CHILD"

/// Runs inside a child process started by ``TrapPolicyTests``. With `KVOGUARD_TRAP_CHILD=1` it removes an
/// unregistered observer under the default policy, which must stop the process; otherwise it checks the same
/// removal under `.report`.
final class TrapChildTests: XCTestCase {
    func testRemovingUnregisteredObserverUnderTrapPolicy() {
        let person = Person()
        let recorder = Recorder()
        let expected = Expected.notRegistered(observer: recorder, object: person, keyPath: "age")
        if ProcessInfo.processInfo.environment[trapChildVariable] == "1" {
            // Tell the parent which objects to expect, then misuse with the policy left at its default.
            print("EXPECTED-REASON: \(expected.message)")
            print("POLICY: \(RuntimeMonitor.misusePolicy)")
            fflush(nil)
            person.removeObserver(recorder, forKeyPath: "age")
            print("SURVIVED-TRAP")
            XCTFail("the trap policy let the process continue")
            return
        }
        let misuses = recordingMisuse { person.removeObserver(recorder, forKeyPath: "age") }
        XCTAssertEqual(misuses, [expected])
    }
}

#if os(Linux)
/// Launches this test binary as a child process running ``TrapChildTests`` and checks it dies like Foundation.
final class TrapPolicyTests: XCTestCase {
    private static let childTest = "GuardCoreTests.TrapChildTests/testRemovingUnregisteredObserverUnderTrapPolicy"

    private struct ChildResult {
        let status: Int32
        let reason: Process.TerminationReason
        let standardOutput: String
        let standardError: String
    }

    private func runChild() throws -> ChildResult {
        let executable = try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")
        let directory = FileManager.default.temporaryDirectory
        let outURL = directory.appendingPathComponent("kvoguard-trap-\(UUID().uuidString).out")
        let errURL = directory.appendingPathComponent("kvoguard-trap-\(UUID().uuidString).err")
        XCTAssertTrue(FileManager.default.createFile(atPath: outURL.path, contents: nil))
        XCTAssertTrue(FileManager.default.createFile(atPath: errURL.path, contents: nil))
        defer {
            try? FileManager.default.removeItem(at: outURL)
            try? FileManager.default.removeItem(at: errURL)
        }
        let out = try FileHandle(forWritingTo: outURL)
        let err = try FileHandle(forWritingTo: errURL)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = [Self.childTest]
        var environment = ProcessInfo.processInfo.environment
        environment[trapChildVariable] = "1"
        // No backtrace: it is slow and long, and the message is what matters.
        environment["SWIFT_BACKTRACE"] = "enable=no"
        process.environment = environment
        process.standardOutput = out
        process.standardError = err
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let finished = DispatchSemaphore(value: 0)
        DispatchQueue.global().async {
            process.waitUntilExit()
            finished.signal()
        }
        if finished.wait(timeout: .now() + 120) == .timedOut {
            process.terminate()
            XCTFail("the child did not finish within 120 s")
            process.waitUntilExit()
        }
        try out.close()
        try err.close()
        return ChildResult(
            status: process.terminationStatus, reason: process.terminationReason,
            standardOutput: try String(contentsOf: outURL, encoding: .utf8),
            standardError: try String(contentsOf: errURL, encoding: .utf8))
    }

    func testTrapPolicyStopsTheProcessWithFoundationsMessage() throws {
        let child = try runChild()
        let context = "stdout:\n\(child.standardOutput)\nstderr:\n\(child.standardError)"
        XCTAssertEqual(child.reason, .uncaughtSignal, "the child must die by a signal; \(context)")
        XCTAssertNotEqual(child.status, 0, context)
        XCTAssertTrue(
            child.standardOutput.contains("Test Case 'TrapChildTests.testRemovingUnregisteredObserverUnderTrapPolicy' started"),
            context)
        XCTAssertTrue(child.standardOutput.contains("POLICY: trap"), "trap is the default policy; \(context)")
        XCTAssertFalse(child.standardOutput.contains("SURVIVED-TRAP"), context)
        XCTAssertFalse(child.standardOutput.contains("passed"), context)
        XCTAssertTrue(
            child.standardError.contains(
                "Terminating app due to uncaught exception 'NSRangeException', reason: 'Cannot remove an observer"),
            context)
        // The exact reason, with the child's own objects.
        let reasonLine = try XCTUnwrap(
            child.standardOutput.components(separatedBy: "\n").first { $0.hasPrefix("EXPECTED-REASON: ") }, context)
        let reason = String(reasonLine.dropFirst("EXPECTED-REASON: ".count))
        XCTAssertTrue(reason.hasPrefix("Cannot remove an observer <Recorder: 0x"), reason)
        XCTAssertTrue(reason.hasSuffix("because it is not registered as an observer."), reason)
        XCTAssertTrue(
            child.standardError.contains(
                "Fatal error: *** Terminating app due to uncaught exception 'NSRangeException', reason: '\(reason)'"),
            context)
    }
}
#endif
