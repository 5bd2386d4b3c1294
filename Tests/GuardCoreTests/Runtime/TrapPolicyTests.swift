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

    private func runChild() throws -> ChildTestProcess.Result {
        try ChildTestProcess(test: Self.childTest, environment: [trapChildVariable: "1"]).run()
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
