@testable import FaultInjector
import FaultInjectorTestSupport
import Foundation
import XCTest

/// `guard-stress explore --proof NAME [--shard I/N]`, run as a subprocess (see ``GuardStressProcess``): a shard
/// explores its part of the suite, in child processes too, and says which part it answered for.
final class ProofCommandLineTests: XCTestCase {
    private var directory: TemporaryDirectory!

    override func setUpWithError() throws {
        directory = try TemporaryDirectory("fi-proof-cli")
    }

    override func tearDown() {
        directory?.remove()
        directory = nil
    }

    private func run(_ arguments: [String], file: StaticString = #filePath, line: UInt = #line) throws -> GuardStressProcess.Outcome {
        try GuardStressProcess.run(arguments, in: directory, timeout: 300, file: file, line: line)
    }

    func testAShardExploresItsPartOfTheSuiteAndSaysSo() throws {
        for jobs in ["1", "2"] {
            let outcome = try run(["explore", "--proof", "pairs", "--shard", "3/903", "--jobs", jobs, "--json", "p.json"])
            XCTAssertEqual(outcome.status, 0, outcome.stdout + outcome.stderr)
            XCTAssertTrue(outcome.stdout.contains("Proof pairs (shard 3/903"), outcome.stdout)
            XCTAssertTrue(outcome.stdout.contains("proof pairs shard 3/903: 1 scenario"), outcome.stdout)
            let report = try JSONDecoder().decode(
                ExplorationReport.self, from: Data(contentsOf: URL(fileURLWithPath: directory.file("p.json"))))
            XCTAssertEqual(report.scenarios, 1)
            XCTAssertEqual(report.scenario, "proof pairs shard 3/903")
            XCTAssertEqual(report.answer, "complete")
        }
    }

    func testABadShardIsAUsageError() throws {
        for shard in ["0/3", "4/3", "1/0", "1", "a/b", "1/2/3", "1/20000"] {
            GuardStressProcess.assertUsageError(
                try run(["explore", "--proof", "pairs", "--shard", shard]), mentioning: "--shard must be I/N")
        }
        try directory.write(Data("worker 0:\n  mutate o0 k0\n".utf8), to: "one.scenario")
        GuardStressProcess.assertUsageError(
            try run(["explore", "one.scenario", "--shard", "1/2"]), mentioning: "--shard splits a --proof run")
    }

    func testShardsPartitionTheSuite() throws {
        let suite = ProofSuite.pairs
        var seen: [Int] = []
        for index in 1...7 {
            let shard = try XCTUnwrap(ProofShard(index: index, of: 7))
            let part = ProofExecution(suite: suite, targetName: "guard", settings: ExplorationSettings(), shard: shard).indexes
            XCTAssertTrue(part.allSatisfy { $0 % 7 == index - 1 }, "shard \(index)/7: every 7th from the \(index)th")
            seen += part
        }
        XCTAssertEqual(seen.sorted(), Array(suite.scenarios.indices), "the shards together are the suite, once each")
        XCTAssertNil(ProofShard(index: 0, of: 7))
        XCTAssertNil(ProofShard(index: 8, of: 7))
    }
}
