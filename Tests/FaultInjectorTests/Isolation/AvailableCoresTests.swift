@testable import FaultInjector
import FaultInjectorTestSupport
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

    // MARK: Memory

    func testMemoryBudgetReadsMemAvailableAndFitsRoundsInThreeQuartersOfIt() {
        XCTAssertEqual(MemoryBudget.available(meminfo: "MemTotal:  100 kB\nMemAvailable:    2048 kB\n"), 2_097_152)
        XCTAssertNil(MemoryBudget.available(meminfo: "MemTotal:  100 kB\n"))
        XCTAssertNil(MemoryBudget.available(meminfo: "MemAvailable: lots\n"))
        let round = MemoryBudget.roundBytes(operations: 1_000_000)
        XCTAssertGreaterThan(round, MemoryBudget.roundBytes(operations: 64_000))
        XCTAssertEqual(MemoryBudget.jobs(fitting: 1_000_000, in: round * 4), 3)
        XCTAssertEqual(MemoryBudget.jobs(fitting: 1_000_000, in: round / 2), 1, "at least one round")
        XCTAssertEqual(MemoryBudget.jobs(fitting: 1_000_000, in: nil), .max)
        #if os(Linux)
        XCTAssertNotNil(MemoryBudget.availableBytes)
        #endif
    }

    /// Rounds too big for every core's worth of them in memory: the default runs fewer at once, and says why (a
    /// process the kernel killed for memory would read as a crash of the guard).
    func testRunDefaultsToTheJobsMemoryHolds() throws {
        let directory = try TemporaryDirectory("fi-memory")
        defer { directory.remove() }
        let operations = 4_096 * 12_000
        let fitting = MemoryBudget.jobs(fitting: operations, in: MemoryBudget.availableBytes)
        let outcome = try GuardStressProcess.run(
            ["run", "--ops", "20", "--queues", "4096", "--ops-per-queue", "12000", "--no-compare",
             "--out", directory.file("seeds")], in: directory)
        XCTAssertEqual(outcome.status, 0, outcome.stderr)
        if fitting < AvailableCores.count {
            XCTAssertTrue(outcome.stderr.contains(" at once (memory: a round of 49,152,000 operations needs about "), outcome.stderr)
        } else {
            XCTAssertTrue(outcome.stderr.contains(", \(AvailableCores.count) at once\n"), outcome.stderr)
        }
        let explicit = try GuardStressProcess.run(
            ["run", "--ops", "20", "--queues", "4096", "--ops-per-queue", "12000", "--no-compare", "--jobs", "64",
             "--out", directory.file("seeds")], in: directory)
        XCTAssertEqual(explicit.status, 0, explicit.stderr)
        XCTAssertTrue(explicit.stderr.contains(", 64 at once (more than memory holds: "), explicit.stderr)
    }
}
