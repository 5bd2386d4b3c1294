@testable import FaultInjector
import FaultInjectorTestSupport
import Foundation
import GuardCore
import XCTest

/// Seed files of version 2, which record controlled runs: their strategy, limits and schedule, and every way those
/// fields can be wrong.
final class ControlledSeedFileTests: XCTestCase, SeedFileReadingTestCase {
    var directory: TemporaryDirectory!

    override func setUpWithError() throws {
        directory = try TemporaryDirectory("fi-controlled-seeds")
    }

    override func tearDown() {
        directory?.remove()
        directory = nil
    }

    func testControlledSeedFileRoundTripsWithItsStrategyLimitsAndSchedule() throws {
        let result = RunFixtures.controlledRawFailure
        XCTAssertFalse(result.passed)
        let execution = try XCTUnwrap(result.recording.controlled)
        let written = SeedFile(result: result, toolVersion: ToolVersion.current)
        XCTAssertEqual(written.version, 2)
        XCTAssertEqual(written.runner, "controlled")
        XCTAssertEqual(written.strategy, "pct")
        XCTAssertEqual(written.depth, 3)
        XCTAssertEqual(written.expectedSteps, execution.expectedSteps)
        XCTAssertEqual(written.stepLimit, 1_000_000)
        let schedule = try XCTUnwrap(written.schedule)
        XCTAssertEqual(schedule.steps, execution.steps)
        XCTAssertEqual(schedule.workers, execution.schedule.workersText)
        XCTAssertEqual(schedule.points, execution.schedule.pointsText)
        XCTAssertEqual(schedule.historyDigest, result.history.digest)

        let path = try SeedFileStore.write(written, into: directory.path)
        XCTAssertEqual((path as NSString).lastPathComponent, "seed-raw-pct-5.json")
        let read = try SeedFileStore.read(path)
        XCTAssertEqual(read, written)
        XCTAssertEqual(try read.makeScenario(), result.scenario)
        XCTAssertTrue(try read.makeSchedule() == execution.schedule)
        var settings = ControlledRunner.Settings()
        settings.strategy = .pct(depth: 3)
        settings.expectedSteps = execution.expectedSteps
        XCTAssertEqual(try read.makeRunnerChoice(), .controlled(settings))
    }

    func testRandomStrategyFilesHaveNoDepthOrExpectedSteps() throws {
        var settings = ControlledRunner.Settings()
        settings.strategy = .random
        let result = ControlledRunner(settings: settings).runAndEvaluate(
            Scenario(configuration: .controlledDefault, seed: 6), against: RawRuntimeTarget())
        let written = SeedFile(result: result, toolVersion: ToolVersion.current)
        XCTAssertEqual(written.strategy, "random")
        XCTAssertNil(written.depth)
        XCTAssertNil(written.expectedSteps)
        let read = try SeedFileStore.read(SeedFileStore.write(written, into: directory.path))
        XCTAssertEqual(try read.makeRunnerChoice(), .controlled(settings))
    }

    func testVersionOneFilesAreStillRead() throws {
        let path = try directory.write(RunFixtures.editedRawSeedFile { $0["version"] = 1 }, to: "v1.json")
        let file = try SeedFileStore.read(path)
        XCTAssertEqual(file.version, 1)
        XCTAssertEqual(try file.makeRunnerChoice(), .chaos)
        XCTAssertNil(try file.makeSchedule())
    }

    func testControlledFileFieldsThatDoNotFitTheRunner() throws {
        try assertControlledRejected({ $0["strategy"] = nil }, mentioning: "a controlled seed file needs a \"strategy\" (random or pct)")
        XCTAssertEqual(try readControlled { $0["strategy"] = "dfs" }, .unknownStrategy("dfs"))
        XCTAssertEqual(SeedFileError.unknownStrategy("dfs").description, "the seed file names strategy \"dfs\"; this guard-stress knows \"random\" and \"pct\"")
        try assertControlledRejected({ $0["depth"] = nil }, mentioning: "strategy pct needs a depth")
        try assertControlledRejected({ $0["depth"] = 0 }, mentioning: "the pct depth must be between 1 and 100 (is 0)")
        try assertControlledRejected({ $0["depth"] = 101 }, mentioning: "the pct depth must be between 1 and 100 (is 101)")
        try assertControlledRejected({ $0["strategy"] = "random" }, mentioning: "strategy random takes no depth")
        try assertControlledRejected({ object in
            object["strategy"] = "random"
            object["depth"] = nil
        }, mentioning: "\"expectedSteps\" belongs to strategy pct, not random")
        try assertControlledRejected({ $0["expectedSteps"] = 0 }, mentioning: "expectedSteps must be between 1 and")
        try assertControlledRejected({ $0["stepLimit"] = nil }, mentioning: "a controlled seed file needs a \"stepLimit\"")
        try assertControlledRejected({ $0["stepLimit"] = 0 }, mentioning: "the step limit must be between 1 and 100000000 (is 0)")
        try assertControlledRejected({ $0["stepLimit"] = 100_000_001 }, mentioning: "the step limit must be between 1 and 100000000")
        try assertControlledRejected({ $0["stepLimit"] = 10 }, mentioning: "more than the step limit of 10")
        let (wrongType, path) = try readEdited { $0["depth"] = "three" }
        assertMalformed(wrongType, path: path, mentioning: "\"depth\" must be a whole number, not a string (\"three\")")
    }

    func testChaosFilesHaveNoScheduleFields() throws {
        for (field, value) in [("strategy", "pct"), ("depth", 3), ("expectedSteps", 10), ("stepLimit", 10)] as [(String, Any)] {
            let (error, _) = try readEdited { $0[field] = value }
            assertNonsensical(error, mentioning: "a chaos seed file has no \"\(field)\"")
        }
        let (schedule, _) = try readEdited { $0["schedule"] = ["steps": 1, "workers": "0", "points": "s"] }
        assertNonsensical(schedule, mentioning: "a chaos seed file has no \"schedule\"")
    }

    func testScheduleFieldsThatMakeNoSense() throws {
        func schedule(_ name: String, _ value: Any?) -> (inout [String: Any]) -> Void {
            { RunFixtures.setScheduleField(name, to: value, in: &$0) }
        }
        try assertControlledRejected(schedule("workers", "0 x"), mentioning: "the schedule cannot be read: \"x\" is not a worker number")
        try assertControlledRejected(schedule("workers", "0*0"), mentioning: "has a run length that is not a positive whole number")
        try assertControlledRejected(schedule("points", "s?"), mentioning: "has the point code \"?\", which names no point")
        try assertControlledRejected(schedule("points", "s"), mentioning: "chosen workers but 1 points")
        try assertControlledRejected(schedule("steps", 3), mentioning: "the schedule says it has 3 steps but lists")
        try assertControlledRejected({ object in
            RunFixtures.setScheduleField("workers", to: "9", in: &object)
            RunFixtures.setScheduleField("points", to: "s", in: &object)
            RunFixtures.setScheduleField("steps", to: 1, in: &object)
        }, mentioning: "the schedule runs worker 9, but the scenario has 4 workers (0 to 3)")
        try assertControlledRejected(schedule("historyDigest", "xyz"), mentioning: "the history digest \"xyz\" is not 16 hexadecimal digits")
        let (missing, path) = try { () throws -> (SeedFileError?, String) in
            let path = try directory.write(RunFixtures.editedControlledSeedFile(schedule("points", nil)), to: "nopoints.json")
            return (readError(path), path)
        }()
        assertMalformed(missing, path: path, mentioning: "\"schedule.points\" is missing")
        // Without a schedule, a controlled file is fine: the strategy and seed regenerate it.
        let unscheduled = try directory.write(RunFixtures.editedControlledSeedFile { $0["schedule"] = nil }, to: "unscheduled.json")
        XCTAssertNil(try SeedFileStore.read(unscheduled).makeSchedule())
    }
}
