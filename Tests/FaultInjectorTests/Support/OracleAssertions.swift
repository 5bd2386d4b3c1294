import FaultInjector
import XCTest

/// Asserts that the oracle found nothing wrong in `report`, listing what it found otherwise.
func assertPassed(_ report: Verdict, file: StaticString = #filePath, line: UInt = #line) {
    XCTAssertTrue(report.passed, report.violations.map(\.message).joined(separator: " | "), file: file, line: line)
}

/// Asserts that `report` failed with exactly one violation, of `kind`, whose message contains `phrase`.
func assertOnly(
    _ kind: Violation.Kind, in report: Verdict, mentioning phrase: String,
    file: StaticString = #filePath, line: UInt = #line
) {
    XCTAssertFalse(report.passed, file: file, line: line)
    XCTAssertEqual(
        report.violationCounts, [kind: 1], report.violations.map(\.message).joined(separator: " | "), file: file,
        line: line)
    XCTAssertEqual(report.signature, kind.rawValue, file: file, line: line)
    XCTAssertEqual(report.violations.count, 1, file: file, line: line)
    XCTAssertEqual(report.violations.first?.kind, kind, file: file, line: line)
    let message = report.violations.first?.message ?? ""
    XCTAssertTrue(message.contains(phrase), "\"\(message)\" does not mention \"\(phrase)\"", file: file, line: line)
}
