import FaultInjector
import FaultInjectorTestSupport
@testable import FaultInjectorTools
import Foundation
import XCTest

/// An explanation of a controlled file it could not replay exactly (no recorded schedule, or no history digest)
/// says exactness was not checked, with the reason the replay gives, and never claims the same history.
final class ExplainExactnessTests: XCTestCase {
    private var directory: TemporaryDirectory!

    override func setUpWithError() throws {
        directory = try TemporaryDirectory("fi-exactness")
    }

    override func tearDown() {
        directory?.remove()
        directory = nil
    }

    func testTheExplanationDoesNotClaimTheSameHistoryWithoutADigest() throws {
        let path = try directory.write(RunFixtures.controlledSeedFileWithoutDigest(), to: "no-digest.json")
        let story = try Explainer(file: SeedFileStore.read(path), fileName: "no-digest.json").explain()
        XCTAssertFalse(story.header.provenance.contains("exact replay"), story.header.provenance)
        XCTAssertTrue(story.header.provenance.contains("was not checked"), story.header.provenance)
    }

    /// The explanation gives the same reason the replay gives (one rule decides both), never a wording of its own.
    func testTheExplanationGivesTheReplaysReasonWhenExactnessWasNotChecked() throws {
        let cases = [
            (try RunFixtures.controlledSeedFileWithoutSchedule(), "no-schedule.json"),
            (try RunFixtures.controlledSeedFileWithoutDigest(), "no-digest.json"),
        ]
        for (data, name) in cases {
            let file = try SeedFileStore.read(try directory.write(data, to: name))
            let reason = try XCTUnwrap(try Replayer(file: file).replay(runs: 1).exactnessNotChecked, name)
            let story = try Explainer(file: file, fileName: name).explain()
            XCTAssertTrue(story.header.provenance.hasSuffix("was not checked: " + reason), "\(name): \(story.header.provenance)")
        }
    }
}
