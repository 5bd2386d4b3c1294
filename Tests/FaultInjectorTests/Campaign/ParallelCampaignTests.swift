@testable import FaultInjector
import FaultInjectorTestSupport
import Foundation
import XCTest

/// Campaigns with several jobs through the library: the same rounds, verdicts and seed files as one job, in round
/// order; a crash is its own round's verdict; `stopAtFirstFailure` ends at the first failing round in round order;
/// no round starts after the deadline; the settings refuse what cannot work.
final class ParallelCampaignTests: XCTestCase {
    private var directory: TemporaryDirectory!

    override func setUpWithError() throws {
        directory = try TemporaryDirectory("fi-parallel-campaign")
    }

    override func tearDown() {
        directory?.remove()
        directory = nil
    }

    private func childProcesses() throws -> ChildProcessSettings {
        var settings = ChildProcessSettings(executable: try GuardStressProcess.executable().path, arguments: ["__serve-rounds"])
        // A crash ends its process at once instead of after a backtrace.
        settings.environment["SWIFT_BACKTRACE"] = "enable=no"
        return settings
    }

    private func settings(target: String, jobs: Int, out: String) throws -> Campaign.Settings {
        var settings = Campaign.Settings()
        settings.seed = 21
        settings.target = target
        settings.jobs = jobs
        settings.duration = 120
        settings.outputDirectory = directory.file(out)
        settings.maximumSeedFiles = 1_000
        settings.isolation = .childProcesses(try childProcesses())
        return settings
    }

    /// A seed file's content without its creation time.
    private func content(_ path: String) throws -> String {
        var file = try SeedFileStore.read(path)
        file.createdAt = ""
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        return String(decoding: try encoder.encode(file), as: UTF8.self)
    }

    /// (round, seed, signature) of every round, in the order the summary lists them.
    private func rounds(_ summary: CampaignSummary) -> [String] {
        summary.roundRecords.map { "\($0.round) \($0.seed) \($0.signature)" }
    }

    /// Controlled rounds are deterministic, so one job and three give the same rounds, verdicts, totals and seed
    /// files, byte for byte but the time stamp; past ``Campaign/stepLearningLag`` rounds PCT's learned expected
    /// step count is the same too.
    func testThreeJobsGiveTheRoundsVerdictsAndSeedFilesOfOne() throws {
        var summaries: [CampaignSummary] = []
        for jobs in [1, 3] {
            var settings = try settings(target: "raw", jobs: jobs, out: "jobs-\(jobs)")
            settings.runner = .controlled(ControlledRunner.Settings())
            settings.scenario = .controlledDefault
            settings.scenario.operationsPerWorker = 5
            settings.operationBudget = (Campaign.stepLearningLag + 20) * settings.scenario.workers * 5
            var progressed: [Int] = []
            let summary = try Campaign(settings: settings).run { progressed.append($0.round.round) }
            XCTAssertNil(summary.harnessError)
            XCTAssertEqual(summary.jobs, jobs)
            XCTAssertEqual(summary.rounds, Campaign.stepLearningLag + 20)
            XCTAssertEqual(progressed, Array(0..<summary.rounds), "progress comes in round order")
            XCTAssertEqual(summary.roundRecords.map(\.round), Array(0..<summary.rounds))
            XCTAssertEqual(summary.isolation?.rounds, summary.rounds)
            summaries.append(summary)
        }
        let (one, three) = (summaries[0], summaries[1])
        XCTAssertFalse(one.passed, "the raw runtime fails")
        XCTAssertEqual(rounds(three), rounds(one))
        XCTAssertEqual(three.failures.map(\.round), one.failures.map(\.round))
        XCTAssertEqual(three.operations, one.operations)
        XCTAssertEqual(three.steps, one.steps)
        XCTAssertEqual(three.verdict.checks, one.verdict.checks)
        XCTAssertEqual(three.verdict.violationCounts, one.verdict.violationCounts)
        XCTAssertEqual(three.seedFiles.count, one.seedFiles.count)
        XCTAssertEqual(one.seedFiles.count, one.failures.count)
        for (first, second) in zip(one.seedFiles, three.seedFiles) {
            XCTAssertEqual((first as NSString).lastPathComponent, (second as NSString).lastPathComponent)
            XCTAssertEqual(try content(first), try content(second))
        }
        let learned = try one.seedFiles.map { try XCTUnwrap(SeedFileStore.read($0).expectedSteps) }
        let estimate = ControlledRunner.Settings.estimatedSteps(operations: 4 * 5)
        XCTAssertEqual(Set(learned.prefix(Campaign.stepLearningLag + 1)), [estimate], "the first rounds use the estimate")
        XCTAssertNotEqual(learned.last, estimate, "later rounds use what the earlier ones took")
    }

    /// The guard passes in every round with either number of jobs; the chaos rounds are the same rounds (seeds,
    /// sizes) and the operation budget is counted the same way.
    func testAPassingChaosCampaignRunsTheSameRoundsWithTwoJobs() throws {
        var summaries: [CampaignSummary] = []
        for jobs in [1, 2] {
            var settings = try settings(target: "guard", jobs: jobs, out: "guard-\(jobs)")
            settings.scenario.workers = 4
            settings.scenario.operationsPerWorker = 30
            settings.operationBudget = 6 * 120 + 50
            let summary = try Campaign(settings: settings).run()
            XCTAssertTrue(summary.passed, "\(summary.failures.map(\.messages))")
            XCTAssertEqual(summary.rounds, 7, "6 whole rounds and one cut to the 50 operations left")
            XCTAssertEqual(summary.seedFiles, [])
            XCTAssertFalse(FileManager.default.fileExists(atPath: settings.outputDirectory), "nothing left .running")
            summaries.append(summary)
        }
        XCTAssertEqual(summaries[0].roundRecords.map(\.seed), summaries[1].roundRecords.map(\.seed))
    }

    /// A segfaulting round is its own verdict; the rounds beside it and after it go on, and are recorded in order.
    func testACrashInOneJobIsItsRoundsVerdictAndTheOtherRoundsGoOn() throws {
        var settings = try settings(target: "fixture-segv", jobs: 2, out: "segv")
        settings.seed = 11
        settings.scenario.workers = 1
        settings.scenario.operationsPerWorker = 4
        settings.operationBudget = 40
        let summary = try Campaign(settings: settings).run()
        XCTAssertEqual(summary.rounds, 10, "every round ran")
        XCTAssertEqual(summary.roundRecords.map(\.round), Array(0..<10))
        let crashed = summary.roundRecords.filter { !$0.passed }
        XCTAssertFalse(crashed.isEmpty)
        XCTAssertLessThan(crashed.count, 10, "rounds that never observe pass")
        XCTAssertEqual(Set(crashed.map(\.signature)), ["crash(SIGSEGV)"])
        XCTAssertEqual(summary.isolation?.processesLost, crashed.count)
        XCTAssertEqual(summary.seedFiles.count, crashed.count)
        XCTAssertEqual(summary.failures.map(\.round), crashed.map(\.round))
        // The same rounds crash with one job: the operations decide, not the timing.
        settings.jobs = 1
        settings.outputDirectory = directory.file("segv-1")
        XCTAssertEqual(rounds(try Campaign(settings: settings).run()), rounds(summary))
    }

    /// With several jobs, stopping at the first failure stops at the first failing round in round order: the
    /// rounds recorded are those one job records, even though later rounds were running beside it.
    func testStopAtFirstFailureStopsAtTheFirstFailingRoundInRoundOrder() throws {
        var recorded: [[String]] = []
        for jobs in [1, 3] {
            var settings = try settings(target: "fixture-segv", jobs: jobs, out: "stop-\(jobs)")
            // Rounds 0 to 2 pass (they never observe), round 3 crashes; with three jobs rounds 4 and 5 run beside it.
            settings.seed = 12
            settings.scenario.workers = 1
            settings.scenario.operationsPerWorker = 4
            settings.operationBudget = 400
            settings.stopAtFirstFailure = true
            let summary = try Campaign(settings: settings).run()
            XCTAssertEqual(summary.rounds, 4)
            XCTAssertEqual(summary.failures.count, 1)
            XCTAssertEqual(summary.failures.first?.round, summary.rounds - 1, "the failing round is the last recorded")
            XCTAssertEqual(summary.seedFiles.count, 1)
            let leftovers = (try? FileManager.default.contentsOfDirectory(atPath: settings.outputDirectory)) ?? []
            XCTAssertEqual(leftovers.filter { $0.hasSuffix(".running.json") }, [], "stopped rounds leave nothing behind")
            recorded.append(rounds(summary))
        }
        XCTAssertEqual(recorded[1], recorded[0])
        XCTAssertEqual(ChildProcesses.liveCount, 0, "every child process was reaped")
    }

    /// No round starts after the deadline: the campaign ends within the duration plus the longest round.
    func testNoRoundStartsAfterTheDeadline() throws {
        var settings = try settings(target: "guard", jobs: 2, out: "deadline")
        settings.scenario.workers = 4
        settings.scenario.operationsPerWorker = 50
        settings.duration = 1
        let summary = try Campaign(settings: settings).run()
        XCTAssertTrue(summary.passed)
        XCTAssertGreaterThan(summary.rounds, 2)
        let longest = summary.roundRecords.map(\.seconds).max() ?? 0
        XCTAssertLessThan(summary.seconds, settings.duration + longest + 0.5, "rounds: \(summary.rounds)")
    }

    /// The comparison run is round 0's scenario against the other target, in a job of its own, outside the totals.
    func testTheComparisonRunsRoundZeroAgainstItsTargetOutsideTheTotals() throws {
        for jobs in [1, 2] {
            var settings = try settings(target: "guard", jobs: jobs, out: "compare-\(jobs)")
            settings.runner = .controlled(ControlledRunner.Settings())
            settings.scenario = .controlledDefault
            settings.operationBudget = 3 * settings.scenario.workers * settings.scenario.operationsPerWorker
            settings.comparisonTarget = "raw"
            let summary = try Campaign(settings: settings).run()
            XCTAssertTrue(summary.passed, "the raw comparison's failures are not the campaign's")
            XCTAssertEqual(summary.rounds, 3)
            let comparison = try XCTUnwrap(summary.comparison, summary.comparisonError ?? "no comparison")
            XCTAssertNotNil(comparison.violationCounts[.runtimeMisuse], "\(comparison.violationCounts)")
            XCTAssertGreaterThanOrEqual(comparison.operations, settings.scenario(forRound: 0).operationCount)
            XCTAssertEqual(summary.isolation?.rounds, 4, "the comparison ran in a child process too")
        }
    }

    func testJobsNeedChildProcessesAndARange() throws {
        var settings = Campaign.Settings()
        settings.jobs = 2
        XCTAssertThrowsError(try Campaign(settings: settings)) { error in
            XCTAssertTrue("\(error)".contains("rounds in this process run one at a time"), "\(error)")
        }
        settings.isolation = .childProcesses(try childProcesses())
        for jobs in [0, -1, Campaign.maximumJobs + 1] {
            settings.jobs = jobs
            XCTAssertThrowsError(try Campaign(settings: settings)) { error in
                XCTAssertTrue("\(error)".contains("jobs must be from 1 to \(Campaign.maximumJobs)"), "\(error)")
            }
        }
        settings.jobs = 1
        settings.comparisonTarget = "no-such-target"
        XCTAssertThrowsError(try Campaign(settings: settings))
    }
}
