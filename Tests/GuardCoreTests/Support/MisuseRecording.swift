import GuardCore
import XCTest

/// Runs `body` under the `report` policy and returns the misuses it caused, oldest first.
func recordingMisuse(_ body: () -> Void) -> [KVOMisuse] {
    RuntimeMonitor.withMisusePolicy(.report) {
        RuntimeMonitor.resetMisuseRecords()
        body()
        let misuses = RuntimeMonitor.reportedMisuses
        RuntimeMonitor.resetMisuseRecords()
        return misuses
    }
}

/// Asserts that `body` causes no misuse at all.
func assertNoMisuse(file: StaticString = #filePath, line: UInt = #line, _ body: () -> Void) {
    let misuses = recordingMisuse(body)
    XCTAssertEqual(misuses, [], "expected no misuse", file: file, line: line)
}

/// `<Type: 0x...>` as GuardCore renders an object.
func rendered(_ object: AnyObject) -> String {
    let digits = String(UInt(bitPattern: ObjectIdentifier(object)), radix: 16)
    return "<\(type(of: object)): 0x" + String(repeating: "0", count: max(0, 16 - digits.count)) + digits + ">"
}
