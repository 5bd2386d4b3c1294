import FaultInjector
import XCTest

/// Asserts that the oracle held, printing the report's violations if not.
func assertOracleHeld(_ result: RunResult, _ label: String, file: StaticString = #filePath, line: UInt = #line) {
    let details = result.verdict.violations.prefix(8).map { "  - \($0.kind.rawValue): \($0.message)" }
        .joined(separator: "\n")
    XCTAssertTrue(
        result.passed,
        "\(label): the oracle was violated (\(result.verdict.signature)):\n\(details)", file: file, line: line)
    XCTAssertFalse(result.verdict.abandoned, "\(label): the run deadlocked", file: file, line: line)
}

/// Asserts that the oracle really looked at the run: the core checks were each made at least once.
func assertOracleChecked(_ result: RunResult, _ label: String, file: StaticString = #filePath, line: UInt = #line) {
    for check in [
        "notification has a live registration and a cause", "a live registration hears every change",
        "no runtime misuse", "nothing leaked",
    ] {
        XCTAssertGreaterThan(
            result.verdict.checks[check, default: 0], 0, "\(label): the oracle never checked '\(check)'",
            file: file, line: line)
    }
    XCTAssertGreaterThan(result.verdict.deliveries, 0, "\(label): no notification was delivered at all", file: file, line: line)
}
