import Foundation
import GuardCore
import XCTest

/// The environment variable that makes ``StandardErrorSinkChildTests`` write diagnostics to its standard error.
private let sinkChildVariable = "KVOGUARD_STDERR_SINK_CHILD"

/// Runs inside a child process started by ``StandardErrorSinkChildProcessTests``: 4,000 absorbed mistakes (removing
/// an observation never made), each one line from ``StandardErrorSink`` on the child's standard error. Prints the
/// expected line on standard output, then `SINK-CHILD-DONE`.
final class StandardErrorSinkChildTests: XCTestCase {
    /// In a child process of ``StandardErrorSinkChildProcessTests`` the lines go to standard error; run on its own,
    /// the same mistakes are only counted, so the test still checks that each is absorbed as one diagnostic.
    func testWriteDiagnosticsToStandardError() throws {
        let isChild = ProcessInfo.processInfo.environment[sinkChildVariable] == "1"
        let firstLine = FirstLine()
        let counting = CountingSink(keepsEvents: false)
        let sink = ClosureSink { event in
            firstLine.keep(event.description)
            counting.record(event)
            if isChild { StandardErrorSink().record(event) }
        }
        let observer = Recorder()
        let controller = ObservationController(observer: observer, diagnosticSink: sink)
        let person = Person()
        for _ in 0..<4_000 {
            XCTAssertEqual(controller.unobserve(person, keyPath: "age"), .notRegistered)
        }
        withExtendedLifetime(observer) {}
        XCTAssertEqual(counting.count(of: .removalOfUnregistered), 4_000)
        guard isChild else { return }
        print("SINK-CHILD-LINE: \(firstLine.value ?? "none")")
        print("SINK-CHILD-DONE")
        fflush(nil)
    }
}

private final class FirstLine: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: String?

    func keep(_ line: String) {
        lock.withLock { if stored == nil { stored = line } }
    }

    var value: String? {
        lock.withLock { stored }
    }
}

#if os(Linux)
/// The default sink on a pipe: a pipe nobody reads loses lines instead of stopping the
/// thread that made the mistake; a reader that reads gets whole lines.
final class StandardErrorSinkChildProcessTests: XCTestCase {
    private static let childTest = "GuardCoreTests.StandardErrorSinkChildTests/testWriteDiagnosticsToStandardError"

    /// Runs the child with standard error `standardError`; waits up to `timeout` seconds, then kills it (and fails).
    private func runChild(standardError: Pipe, timeout: Double) throws -> ChildTestProcess.Result {
        try ChildTestProcess(
            test: Self.childTest, environment: [sinkChildVariable: "1"], timeout: timeout, standardErrorPipe: standardError
        ).run()
    }

    /// The line the child's sink wrote for each mistake (every one is the same).
    private func expectedLine(_ child: ChildTestProcess.Result) -> String? {
        child.standardOutput.components(separatedBy: "\n").first { $0.hasPrefix("SINK-CHILD-LINE: ") }
            .map { String($0.dropFirst("SINK-CHILD-LINE: ".count)) }
    }

    private func assertPassed(_ child: ChildTestProcess.Result, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertTrue(child.exitedCleanly, child.transcript, file: file, line: line)
        XCTAssertTrue(child.standardOutput.contains("SINK-CHILD-DONE"), child.standardOutput, file: file, line: line)
    }

    /// 4,000 diagnostics (about 600 KB) into a 64 KiB pipe nobody reads: the child finishes (it used to block in
    /// `write(2)` until killed), and the pipe holds whole lines only, fewer than were written.
    func testAPipeNobodyReadsLosesLinesInsteadOfBlocking() throws {
        let pipe = Pipe()  // read only after the child has exited
        let child = try runChild(standardError: pipe, timeout: 60)
        try pipe.fileHandleForWriting.close()
        assertPassed(child)
        let expected = try XCTUnwrap(expectedLine(child), child.standardOutput)
        let text = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        XCTAssertEqual(lines.last, "", "the pipe ends with a whole line")
        XCTAssertGreaterThan(lines.count - 1, 0)
        XCTAssertLessThan(lines.count - 1, 4_000, "a 64 KiB pipe cannot hold every line: some were lost")
        XCTAssertEqual(lines.dropLast().filter { $0 != expected }, [], "every line is whole")
    }

    /// A reader that reads while the child writes gets whole lines, each one a diagnostic.
    func testAReaderThatReadsGetsWholeLines() throws {
        let pipe = Pipe()
        let received = ReceivedText()
        let reader = DispatchSemaphore(value: 0)
        DispatchQueue.global().async {
            received.set(pipe.fileHandleForReading.readDataToEndOfFile())
            reader.signal()
        }
        let child = try runChild(standardError: pipe, timeout: 60)
        try pipe.fileHandleForWriting.close()
        reader.wait()
        assertPassed(child)
        let expected = try XCTUnwrap(expectedLine(child), child.standardOutput)
        let lines = received.text.split(separator: "\n", omittingEmptySubsequences: false)
        XCTAssertEqual(lines.last, "", "the text ends with a whole line")
        XCTAssertGreaterThan(lines.count - 1, 0)
        XCTAssertLessThanOrEqual(lines.count - 1, 4_000)
        XCTAssertEqual(lines.dropLast().filter { $0 != expected }, [], "every line is whole")
    }
}

private final class ReceivedText: @unchecked Sendable {
    private let lock = NSLock()
    private var data = Data()

    func set(_ data: Data) {
        lock.withLock { self.data = data }
    }

    var text: String {
        lock.withLock { String(decoding: data, as: UTF8.self) }
    }
}
#endif
