import Foundation
import GuardCore
import XCTest

/// The environment variable that makes ``DanglingUnownedChildTests`` read an unowned property whose object is gone.
private let danglingChildVariable = "KVOGUARD_DANGLING_UNOWNED_CHILD"

/// Runs inside a child process started by ``DanglingUnownedReadTests``.
final class DanglingUnownedChildTests: XCTestCase {
    func testReadingAnUnownedPropertyWhoseObjectIsGone() {
        var owner: DelegateTarget? = DelegateTarget()
        let holder = ReferenceHolder(owner: owner!)
        owner = nil
        guard ProcessInfo.processInfo.environment[danglingChildVariable] == "1" else {
            // Run on its own, the test only checks the property still reads while its object lives.
            let living = DelegateTarget()
            holder.owner = living
            XCTAssertTrue(holder.value(forKey: "owner") as AnyObject? === living)
            return
        }
        print("READING")
        fflush(nil)
        _ = holder.value(forKey: "owner")
        print("SURVIVED-READ")
        XCTFail("reading an unowned reference to a gone object returned")
    }
}

#if os(Linux)
/// Key-value coding reads an `unowned` property as Swift reads it: when its object has been deinitialized, the read
/// stops the process with Swift's own message, never returning a reference to a freed object.
final class DanglingUnownedReadTests: XCTestCase {
    func testReadingAnUnownedPropertyWhoseObjectIsGoneStopsTheProcessAsSwiftDoes() throws {
        let child = try ChildTestProcess(
            test: "GuardCoreTests.DanglingUnownedChildTests/testReadingAnUnownedPropertyWhoseObjectIsGone",
            environment: [danglingChildVariable: "1"]
        ).run()
        XCTAssertFalse(child.exitedCleanly, child.transcript)
        XCTAssertTrue(child.standardOutput.contains("READING"), child.transcript)
        XCTAssertFalse(child.standardOutput.contains("SURVIVED-READ"), child.transcript)
        XCTAssertTrue(
            child.standardError.contains("Attempted to read an unowned reference but object"), child.transcript)
    }
}
#endif
