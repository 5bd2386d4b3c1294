@testable import FaultInjector
import Foundation
import XCTest

/// ``AvailableCores``: the affinity mask is read right, and `guard-stress run` defaults `--jobs` to the count.
final class AvailableCoresTests: XCTestCase {
    func testTheAffinityMaskIsCounted() {
        XCTAssertEqual(AvailableCores.allowedCount(status: "Name:\tx\nCpus_allowed:\tff\nCpus_allowed_list:\t0-7\n"), 8)
        XCTAssertEqual(AvailableCores.allowedCount(status: "Cpus_allowed:\t00000000,00000003\n"), 2)
        XCTAssertEqual(AvailableCores.allowedCount(status: "Cpus_allowed:\t80000000,00000001\n"), 2)
        XCTAssertNil(AvailableCores.allowedCount(status: "Name:\tx\n"))
        XCTAssertNil(AvailableCores.allowedCount(status: "Cpus_allowed:\tzz\n"))
        XCTAssertGreaterThanOrEqual(AvailableCores.count, 1)
        XCTAssertLessThanOrEqual(AvailableCores.count, ProcessInfo.processInfo.activeProcessorCount)
        #if os(Linux)
        XCTAssertNotNil(AvailableCores.affinityCount)
        #endif
    }

    func testRunDefaultsToOneJobPerAvailableCore() throws {
        let directory = try TemporaryDirectory("fi-cores")
        defer { directory.remove() }
        let outcome = try GuardStressProcess.run(
            ["run", "--ops", "20", "--queues", "2", "--no-compare", "--out", directory.file("seeds")], in: directory)
        XCTAssertEqual(outcome.status, 0, outcome.stderr)
        XCTAssertTrue(outcome.stderr.contains(", \(AvailableCores.count) at once"), outcome.stderr)
        let taskset = "/usr/bin/taskset"
        guard FileManager.default.isExecutableFile(atPath: taskset) else { return }
        // One allowed core: one job.
        let process = Process()
        process.executableURL = URL(fileURLWithPath: taskset)
        process.arguments = ["-c", "0", try GuardStressProcess.executable().path, "run", "--ops", "20", "--queues", "2",
                             "--no-compare", "--out", directory.file("one")]
        let errors = Pipe()
        process.standardError = errors
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        let text = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        XCTAssertEqual(process.terminationStatus, 0, text)
        XCTAssertTrue(text.contains(", 1 at once"), text)
    }
}
