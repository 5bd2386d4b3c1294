import FaultInjector
import FaultInjectorTools
import Foundation
import GuardCore
import XCTest

/// Each reported race in the corpus (`Tests/StressTests/Seeds/NN-...json`) is a race (at least two workers, and its
/// failure shows in no serial order of them) or says plainly that the report reduces to a sequential misuse (and a
/// serial order does show it); and no two corpus files run the same operations against the same target.
final class CorpusRaceTests: XCTestCase {
    private func corpus() throws -> [(name: String, file: SeedFile)] {
        let url = try XCTUnwrap(Bundle.module.url(forResource: "Seeds", withExtension: nil), "the Seeds resource is missing")
        let names = try FileManager.default.contentsOfDirectory(atPath: url.path).filter { $0.hasSuffix(".json") }.sorted()
        return try names.map { ($0, try SeedFileStore.read(url.appendingPathComponent($0).path)) }
    }

    func testEveryReportedRaceIsARaceOrSaysItIsASequentialMisuse() throws {
        var races = 0
        var sequential = 0
        for (name, file) in try corpus() where name.first?.isNumber == true {
            let target = try XCTUnwrap(TargetCatalog.make(file.target, diagnostics: CountingSink(keepsEvents: false)))
            let scenario = try file.makeScenario()
            let description = file.description ?? ""
            let verdict = RaceVerdict.judge(scenario, failingWith: file.failure.signature, against: target)
            if description.contains("a sequential misuse, not a race") {
                sequential += 1
                XCTAssertFalse(verdict.needsConcurrency, "\(name) says it is sequential, but no serial order fails: \(verdict)")
            } else {
                races += 1
                XCTAssertTrue(description.contains("a race"), "\(name) says neither: \(description)")
                XCTAssertGreaterThanOrEqual(scenario.operations.count, 2, "\(name): a race needs two workers")
                XCTAssertTrue(verdict.needsConcurrency, "\(name) fails in a serial order: \(verdict.summary)")
                XCTAssertEqual(file.shrunk?.needsConcurrency, true, "\(name) was shrunk keeping the race")
            }
        }
        XCTAssertEqual(races, 1, "reported race 4 is a race on the raw runtime")
        XCTAssertEqual(sequential, 5)
    }

    func testNoTwoCorpusFilesRunTheSameOperationsAgainstTheSameTarget() throws {
        var seen: [String: String] = [:]
        for (name, file) in try corpus() {
            let scenario = try file.makeScenario()
            let key = "\(file.target) \(scenario.operations) \(scenario.configuration.weakControllers ?? [])"
                + " \((0..<scenario.configuration.controllers).map { scenario.configuration.holdsWeakly(controller: $0) })"
            if let other = seen[key] { XCTFail("\(name) runs what \(other) runs") }
            seen[key] = name
        }
    }
}
