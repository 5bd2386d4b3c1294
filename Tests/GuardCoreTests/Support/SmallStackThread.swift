import Foundation
import XCTest

/// Runs `body` on a thread with a 512 KB stack (the default of a secondary thread on Apple platforms) and waits up to
/// `seconds` for it; a thread that does not finish in time fails the calling test.
func runOnSmallStack(
    waitingUpTo seconds: Int, file: StaticString = #filePath, line: UInt = #line, _ body: @escaping @Sendable () -> Void
) {
    let done = DispatchSemaphore(value: 0)
    let thread = Thread {
        body()
        done.signal()
    }
    thread.stackSize = 512 * 1024
    thread.start()
    XCTAssertEqual(
        done.wait(timeout: .now() + .seconds(seconds)), .success, "the small-stack thread did not finish",
        file: file, line: line)
}
