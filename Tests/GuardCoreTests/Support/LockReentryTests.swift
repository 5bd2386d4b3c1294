import Foundation
import XCTest

@testable import GuardCore

/// The environment variable that makes ``LockReentryChildTests`` take a lock it already holds.
private let lockReentryChildVariable = "KVOGUARD_LOCK_REENTRY_CHILD"

/// Runs inside a child process started by ``LockReentryTests``: with `KVOGUARD_LOCK_REENTRY_CHILD=1` it takes a
/// GuardCore lock twice on one thread, which a debug build must stop with a message (a release build would hang, so
/// the parent runs it only in debug builds); otherwise it takes and releases the lock once.
final class LockReentryChildTests: XCTestCase {
    func testTakingALockItAlreadyHolds() {
        let lock = Lock()
        lock.lock()
        if ProcessInfo.processInfo.environment[lockReentryChildVariable] == "1" {
            print("TAKING-AGAIN")
            fflush(nil)
            lock.lock()
            print("SURVIVED-REENTRY")
            XCTFail("taking a held lock again did not stop the process")
        }
        lock.unlock()
    }
}

#if os(Linux) && DEBUG
/// In debug builds GuardCore's locks are error-checking: a thread that takes a lock it already holds (user code run
/// under a lock calling back into KVOGuard) stops with a message instead of hanging. Release builds use the lock word
/// (`gca_lock`, see `LockPrimitive`), which does not check.
final class LockReentryTests: XCTestCase {
    func testADebugBuildStopsAThreadThatTakesALockItHoldsWithAMessage() throws {
        let child = try ChildTestProcess(
            test: "GuardCoreTests.LockReentryChildTests/testTakingALockItAlreadyHolds",
            environment: [lockReentryChildVariable: "1"], timeout: 60
        ).run()
        let context = child.transcript
        XCTAssertEqual(child.reason, .uncaughtSignal, "the child must stop, not hang or go on; \(context)")
        XCTAssertTrue(child.standardOutput.contains("TAKING-AGAIN"), context)
        XCTAssertFalse(child.standardOutput.contains("SURVIVED-REENTRY"), context)
        XCTAssertTrue(
            child.standardError.contains("KVOGuard: a thread took a lock it already holds (pthread_mutex_lock: EDEADLK)"),
            context)
    }
}
#endif
