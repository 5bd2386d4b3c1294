import FaultInjector
import Foundation
import GuardCore
import XCTest

/// The regression corpus (`Tests/StressTests/Seeds/`): one seed file per race reported in the reference material
/// (DESIGN.md section 5). Each file names the system it breaks; replayed, that system must fail with the misuse
/// the file records, and the guard must pass the very same operations.
final class SeedCorpusTests: XCTestCase {
    private func corpus() throws -> [String] {
        let url = try XCTUnwrap(Bundle.module.url(forResource: "Seeds", withExtension: nil), "the Seeds resource is missing")
        let names = try FileManager.default.contentsOfDirectory(atPath: url.path).filter { $0.hasSuffix(".json") }.sorted()
        return names.map { url.appendingPathComponent($0).path }
    }

    func testTheCorpusCoversTheReportedRaces() throws {
        let names = try corpus().map { ($0 as NSString).lastPathComponent }
        XCTAssertGreaterThanOrEqual(names.count, 6, "corpus: \(names)")
    }

    func testEverySeedFailsItsTargetAndPassesTheGuard() throws {
        for path in try corpus() {
            let name = (path as NSString).lastPathComponent
            let file = try SeedFileStore.read(path)
            XCTAssertNotEqual(file.target, "guard", "\(name): corpus seeds name the system they break")
            XCTAssertFalse(file.failure.runtimeMisuses.isEmpty, "\(name): the file records no misuse to reproduce")

            let broken = try Replayer(file: file).replay(runs: 1)
            XCTAssertEqual(broken.violatedRuns, 1, "\(name): \(file.target) passed; the seed no longer shows the race")
            let misuses = broken.lastViolation?.runtimeMisuses.keys.map(\.rawValue) ?? []
            for kind in file.failure.runtimeMisuses.keys {
                XCTAssertTrue(misuses.contains(kind), "\(name): replay did not hit \(kind) (got \(misuses.sorted()))")
            }

            let guarded = try Replayer(file: file, target: GuardTarget(diagnostics: CountingSink(keepsEvents: false)))
                .replay(runs: 1)
            XCTAssertEqual(
                guarded.violatedRuns, 0, "\(name): the guard failed the same operations: \(guarded.signatures)")
        }
    }
}
