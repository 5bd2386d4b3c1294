@testable import FaultInjector
import FaultInjectorTestSupport
import Foundation
import GuardCore
import XCTest

/// The `guard-stress` executable's `run` and `replay` subcommands, run as a subprocess (see ``GuardStressProcess``).
final class CommandLineTests: XCTestCase {
    private var directory: TemporaryDirectory!

    override func setUpWithError() throws {
        directory = try TemporaryDirectory("fi-cli")
    }

    override func tearDown() {
        directory?.remove()
        directory = nil
    }

    // MARK: Running the executable

    private typealias Outcome = GuardStressProcess.Outcome

    /// Runs guard-stress with `arguments` in the test's temporary directory; kills it after `timeout` seconds.
    private func run(_ arguments: [String], timeout: Double = 30, file: StaticString = #filePath, line: UInt = #line) throws -> Outcome {
        try GuardStressProcess.run(arguments, in: directory, timeout: timeout, file: file, line: line)
    }

    private func assertUsageError(
        _ outcome: Outcome, mentioning phrase: String, file: StaticString = #filePath, line: UInt = #line
    ) {
        GuardStressProcess.assertUsageError(outcome, mentioning: phrase, file: file, line: line)
    }

    /// Short budgets appended to usage-error runs, so a parser that wrongly accepted them would still end fast.
    private var safety: [String] { ["--ops", "50", "--duration", "1", "--out", directory.file("out")] }

    private func seedFiles(in path: String) throws -> [String] {
        guard FileManager.default.fileExists(atPath: path) else { return [] }
        return try FileManager.default.contentsOfDirectory(atPath: path).filter { $0.hasSuffix(".json") }.sorted()
            .map { (path as NSString).appendingPathComponent($0) }
    }

    // MARK: Help and usage errors

    func testHelpExitsZeroAndPrintsUsage() throws {
        for arguments in [["--help"], ["-h"], ["help"]] {
            let outcome = try run(arguments)
            XCTAssertEqual(outcome.status, 0, "\(arguments)")
            XCTAssertTrue(outcome.stdout.contains("USAGE"), outcome.stdout)
            XCTAssertTrue(outcome.stdout.contains("guard-stress replay FILE"), outcome.stdout)
            XCTAssertTrue(outcome.stdout.contains("EXIT CODES"), outcome.stdout)
            XCTAssertEqual(outcome.stderr, "")
        }
        let runHelp = try run(["help", "run"])
        XCTAssertEqual(runHelp.status, 0)
        XCTAssertTrue(runHelp.stdout.contains("--queues N"), runHelp.stdout)
        let replayHelp = try run(["replay", "--help"])
        XCTAssertEqual(replayHelp.status, 0)
        XCTAssertTrue(replayHelp.stdout.contains("--runs K"), replayHelp.stdout)
        XCTAssertTrue(replayHelp.stdout.contains("replays exactly"), replayHelp.stdout)
        for option in ["--runner chaos|controlled", "--strategy pct|random", "--depth D", "--max-steps N"] {
            XCTAssertTrue(runHelp.stdout.contains(option), "run help lacks \(option)")
        }
        XCTAssertTrue(try run(["--help"]).stdout.contains("guard-stress run --runner controlled"))
    }

    func testBadRunnerOptionsExitTwo() throws {
        assertUsageError(try run(["run", "--runner", "quantum"] + safety), mentioning: "--runner must be one of chaos, controlled, not 'quantum'")
        assertUsageError(try run(["run", "--strategy", "pct"] + safety), mentioning: "--strategy needs --runner controlled")
        assertUsageError(try run(["run", "--depth", "3"] + safety), mentioning: "--depth needs --runner controlled")
        assertUsageError(try run(["run", "--max-steps", "10"] + safety), mentioning: "--max-steps needs --runner controlled")
        let controlled = ["run", "--runner", "controlled"]
        assertUsageError(try run(controlled + ["--strategy", "dfs"] + safety), mentioning: "there is no strategy \"dfs\"")
        assertUsageError(try run(controlled + ["--strategy", "random", "--depth", "3"] + safety), mentioning: "strategy random takes no depth")
        assertUsageError(try run(controlled + ["--depth", "0"] + safety), mentioning: "--depth needs a whole number from 1 to 100")
        assertUsageError(try run(controlled + ["--max-steps", "0"] + safety), mentioning: "--max-steps needs a whole number from 1")
        // Each operation takes a step, so a limit below a round's operations is always hit: bad usage, not a violation.
        assertUsageError(
            try run(controlled + ["--queues", "8", "--max-steps", "199", "--ops", "1000", "--duration", "1", "--out", directory.file("out")]),
            mentioning: "--max-steps 199 is fewer than the 200 operations of a round")
        XCTAssertEqual(try seedFiles(in: directory.file("out")), [], "no campaign should have run")
    }

    func testUnknownOptionExitsTwoNamingIt() throws {
        let outcome = try run(["--bogus"] + safety)
        assertUsageError(outcome, mentioning: "unknown option '--bogus'")
        assertUsageError(try run(["run", "--frobnicate=3"] + safety), mentioning: "'--frobnicate=3'")
        assertUsageError(try run(["run", "--no-faults=yes"] + safety), mentioning: "'--no-faults=yes'")
        assertUsageError(try run(["replay", "--bogus", directory.file("x.json")]), mentioning: "unknown option '--bogus'")
    }

    /// An option given twice is bad usage, whichever way it is written: no run, no report under either name.
    func testAnOptionGivenTwiceExitsTwoNamingBothValues() throws {
        let out = directory.file("out")
        assertUsageError(
            try run(["run", "--json", "a.json", "--json", "b.json"] + safety),
            mentioning: "--json is given twice ('a.json' and 'b.json'); give it once")
        assertUsageError(
            try run(["run", "--seed=1", "--seed", "2"] + safety),
            mentioning: "--seed is given twice ('1' and '2')")
        assertUsageError(try run(["run", "--ops", "1"] + safety), mentioning: "--ops is given twice ('1' and '50')")
        assertUsageError(try run(["bench", "--quick", "--filter", "a", "--filter=b"]), mentioning: "--filter is given twice")
        XCTAssertFalse(FileManager.default.fileExists(atPath: directory.file("a.json")))
        XCTAssertFalse(FileManager.default.fileExists(atPath: directory.file("b.json")))
        XCTAssertEqual(try seedFiles(in: out), [], "no campaign should have run")
    }

    func testBadOptionValuesExitTwo() throws {
        assertUsageError(try run(["run", "--queues", "0"] + safety), mentioning: "--queues")
        assertUsageError(try run(["run", "--queues", "many"] + safety), mentioning: "--queues")
        assertUsageError(try run(["run", "--seed", "xyz"] + safety), mentioning: "--seed")
        assertUsageError(try run(["run", "--target", "planted"] + safety), mentioning: "--target")
        // The planted bugs are accepted, so the error lists them too.
        let unknownTarget = try run(["run", "--target", "planted"] + safety)
        for name in TargetCatalog.names + TargetCatalog.plantedBugNames {
            XCTAssertTrue(unknownTarget.stderr.contains(name), "the --target error does not list \(name): \(unknownTarget.stderr)")
        }
        assertUsageError(try run(["run", "--ops", "50", "--out", directory.file("out"), "--duration", "0"]), mentioning: "--duration")
        assertUsageError(try run(["run", "--queues"]), mentioning: "--queues needs a value")
        assertUsageError(try run(["run", "extra"] + safety), mentioning: "positional")
        assertUsageError(try run(["frobnicate"]), mentioning: "unknown subcommand 'frobnicate'")
        XCTAssertEqual(try seedFiles(in: directory.file("out")), [], "no campaign should have run")
    }

    /// `run` holds its scenario to the limits a seed file is held to, instead of drawing billions of operations.
    func testRunRefusesAScenarioBeyondTheSeedFileLimits() throws {
        let outcome = try run(["run", "--queues", "4096", "--ops-per-queue", "10000000", "--duration", "1", "--out", directory.file("out")])
        assertUsageError(outcome, mentioning: "the scenario is unusable: workers × operationsPerWorker must be at most 50000000 (is 40960000000)")
        XCTAssertEqual(try seedFiles(in: directory.file("out")), [], "no campaign should have run")
    }

    /// An option followed by another option lacks its value: it is not taken as a file named `--no-compare`.
    func testAnOptionIsNotTakenAsTheValueOfTheOneBefore() throws {
        assertUsageError(try run(["run", "--json", "--no-compare"] + safety), mentioning: "--json needs a value, not the option '--no-compare'")
        assertUsageError(try run(["run", "--out", "--json", "r.json", "--ops", "50"]), mentioning: "--out needs a value, not the option '--json'")
        XCTAssertEqual(try directory.contents().filter { $0.hasPrefix("--") }, [], "no file named like an option")
        // After `--` every word is positional: here a seed file whose name starts with `-`.
        assertUsageError(try run(["replay", "--runs", "1", "--", "-x.json"]), mentioning: "cannot read seed file -x.json: no such file")
    }

    /// Errors of seconds options give both limits; a stall timeout too short to tell a pause from a deadlock is refused.
    func testSecondsOptionsSayTheirLimits() throws {
        assertUsageError(
            try run(["run", "--ops", "50", "--out", directory.file("out"), "--duration", "0"]),
            mentioning: "--duration needs a number of seconds greater than 0 and at most 604800 (7 days)")
        assertUsageError(
            try run(["run", "--ops", "50", "--out", directory.file("out"), "--duration", "700000"]),
            mentioning: "at most 604800 (7 days)")
        assertUsageError(
            try run(["run", "--stall-timeout", "0.001"] + safety),
            mentioning: "--stall-timeout needs a number of seconds at least 0.1 and at most 604800 (7 days)")
        XCTAssertEqual(try seedFiles(in: directory.file("out")), [], "no campaign should have run")
    }

    func testHelpForAnUnknownCommandIsAnError() throws {
        assertUsageError(try run(["help", "bogus"]), mentioning: "no help for 'bogus': there is no such command")
        assertUsageError(try run(["--help", "bogus"]), mentioning: "no help for 'bogus'")
    }

    func testBadProfileOrMixExitsTwo() throws {
        assertUsageError(try run(["run", "--profile", "nope"] + safety), mentioning: "--profile must be one of mixed, initial-race")
        assertUsageError(try run(["run", "--mix", "observe=3,bogus=1"] + safety), mentioning: "unknown operation 'bogus'")
        assertUsageError(try run(["run", "--mix", "observe=three"] + safety), mentioning: "the weight of observe must be a whole number")
        assertUsageError(try run(["run", "--mix", "observe=0"] + safety), mentioning: "at least one weight must be positive")
        assertUsageError(try run(["run", "--mix", "observe"] + safety), mentioning: "is not NAME=WEIGHT")
        assertUsageError(try run(["run", "--objects", "20000"] + safety), mentioning: "--objects needs a whole number from 1 to 16384")
        XCTAssertEqual(try seedFiles(in: directory.file("out")), [], "no campaign should have run")
        let help = try run(["run", "--help"])
        for profile in ScenarioProfile.allCases { XCTAssertTrue(help.stdout.contains(profile.rawValue), profile.rawValue) }
        for kind in OperationKind.allCases { XCTAssertTrue(help.stdout.contains(kind.rawValue), kind.rawValue) }
    }

    /// A profile and a mix shape the campaign: only the named operations run.
    func testProfileAndMixShapeTheCampaign() throws {
        let campaign = try run([
            "run", "--profile", "dotted", "--mix", "observe=2,link=2,mutate=3", "--queues", "4", "--ops", "800",
            "--duration", "5", "--seed", "8", "--no-compare", "--out", directory.file("dotted"),
        ])
        XCTAssertEqual(campaign.status, 0, campaign.stdout + campaign.stderr)
        XCTAssertTrue(campaign.stderr.contains("profile dotted"), campaign.stderr)
        XCTAssertTrue(campaign.stdout.contains("RESULT: PASS"), campaign.stdout)
        XCTAssertTrue(campaign.stdout.contains("key path unavailable"), "links to objects without k0 were made: \(campaign.stdout)")
        XCTAssertFalse(campaign.stdout.contains("removal of unregistered"), "no unobserve was in the mix: \(campaign.stdout)")
    }

    func testReplayWithoutAFileExitsTwo() throws {
        assertUsageError(try run(["replay"]), mentioning: "replay needs a seed file")
        assertUsageError(try run(["replay", "a.json", "b.json"]), mentioning: "replay takes one seed file, not 2")
        assertUsageError(try run(["replay", directory.file("x.json"), "--runs", "0"]), mentioning: "--runs")
    }

    // MARK: Bad seed files

    /// Replays `path` and asserts exit 2 with exactly one stderr line that mentions `phrase`.
    private func assertReplayRejects(_ path: String, mentioning phrase: String, file: StaticString = #filePath, line: UInt = #line) throws {
        let outcome = try run(["replay", path, "--runs", "1"], file: file, line: line)
        XCTAssertEqual(outcome.status, 2, "\(path): \(outcome.stderr)", file: file, line: line)
        XCTAssertEqual(outcome.stderrLines.count, 1, "stderr: \(outcome.stderr)", file: file, line: line)
        XCTAssertTrue(
            outcome.stderr.contains(phrase), "\"\(outcome.stderr)\" does not mention \"\(phrase)\"", file: file, line: line)
        XCTAssertFalse(outcome.stdout.contains("Replaying"), "the replay should not have started", file: file, line: line)
    }

    private func edited(_ name: String, _ edit: (inout [String: Any]) -> Void) throws -> String {
        try directory.write(RunFixtures.editedRawSeedFile(edit), to: name)
    }

    private func editedOperations(_ name: String, _ edit: (inout [[String]]) -> Void) throws -> String {
        try edited(name) { RunFixtures.editOperations(in: &$0, edit) }
    }

    private func editedScenario(_ name: String, _ field: String, _ value: Any?) throws -> String {
        try edited(name) { RunFixtures.setScenarioField(field, to: value, in: &$0) }
    }

    func testReplayOfAMissingFile() throws {
        try assertReplayRejects(directory.file("absent.json"), mentioning: "no such file")
    }

    func testReplayOfAnEmptyFile() throws {
        try assertReplayRejects(directory.write("", to: "empty.json"), mentioning: "is empty")
    }

    func testReplayOfATruncatedFile() throws {
        let data = try RunFixtures.rawSeedFileData()
        try assertReplayRejects(directory.write(data.prefix(data.count / 2), to: "half.json"), mentioning: "is truncated")
    }

    func testReplayOfSomethingThatIsNotJSON() throws {
        try assertReplayRejects(directory.write("not a seed file at all\n", to: "prose.json"), mentioning: "is not JSON")
        try assertReplayRejects(directory.write("[1, 2]\n", to: "array.json"), mentioning: "is not a seed file: expected a JSON object, found a list")
    }

    func testReplayOfAFileOfAnotherFormatOrVersion() throws {
        try assertReplayRejects(edited("format.json") { $0["format"] = "other" }, mentioning: "is not a KVOGuard seed file")
        try assertReplayRejects(
            edited("version.json") {
                $0["version"] = 3
                $0["scenario"] = nil
            }, mentioning: "is seed file version 3; this guard-stress reads versions 1 to 2")
    }

    func testReplayOfAFileWithMissingOrMistypedFields() throws {
        try assertReplayRejects(editedScenario("missing.json", "workers", nil), mentioning: "\"scenario.workers\" is missing")
        try assertReplayRejects(editedScenario("type.json", "workers", "many"), mentioning: "\"scenario.workers\" must be a whole number, not a string (\"many\")")
        try assertReplayRejects(editedScenario("fraction.json", "controllers", 3.5), mentioning: "\"scenario.controllers\" must be a whole number, not 3.5")
    }

    func testReplayOfAFileNamingAnUnknownTargetOrRunner() throws {
        try assertReplayRejects(edited("target.json") { $0["target"] = "planted" }, mentioning: "names target \"planted\"")
        try assertReplayRejects(edited("runner.json") { $0["runner"] = "quantum" }, mentioning: "names runner \"quantum\"")
    }

    func testReplayOfAFileThatMakesNoSense() throws {
        try assertReplayRejects(edited("seed.json") { $0["seed"] = "twelve" }, mentioning: "the seed \"twelve\" is not a whole number")
        try assertReplayRejects(
            editedOperations("operation.json") { $0[0][0] = "mutate o1 sum" }, mentioning: "\"mutate o1 sum\" is not an operation")
        try assertReplayRejects(
            editedOperations("slot.json") { $0[0][0] = "release-object o6" }, mentioning: "names a slot beyond")
        try assertReplayRejects(editedOperations("workers.json") { $0.removeLast() }, mentioning: "lists 11 workers but its configuration has 12")
        try assertReplayRejects(
            edited("forged.json") { $0["seed"] = "1\r\nguard-stress: replay PASSED, exact" },
            mentioning: "the field \"seed\" holds the control character U+000D")
        try assertReplayRejects(
            editedOperations("long.json") { $0[0] += $0[0] }, mentioning: "operations but the configuration's operationsPerWorker is")
        try assertReplayRejects(editedScenario("zero.json", "workers", 0), mentioning: "workers must be between 1 and 4096 (is 0)")
    }

    // MARK: Campaigns and replays

    func testRawCampaignFailsWritesSeedFilesAndReplayReproduces() throws {
        let out = directory.file("raw-seeds")
        let campaign = try run(["run", "--target", "raw", "--queues", "16", "--ops", "3000", "--duration", "5", "--out", out, "--seed", "5"])
        XCTAssertEqual(campaign.status, 1, campaign.stdout + campaign.stderr)
        XCTAssertTrue(campaign.stdout.contains("runtime misuse (each one a crash under Foundation):"), campaign.stdout)
        XCTAssertTrue(campaign.stdout.contains("notRegistered"), campaign.stdout)
        XCTAssertTrue(campaign.stdout.contains("RESULT: FAIL"), campaign.stdout)
        XCTAssertFalse(campaign.stdout.contains("What the raw runtime"), "no comparison for the raw target itself")
        let files = try seedFiles(in: out)
        XCTAssertGreaterThanOrEqual(files.count, 1, "no seed file in \(out)")
        for path in files {
            XCTAssertTrue(campaign.stdout.contains(path), "the summary does not list \(path)")
            let file = try SeedFileStore.read(path)
            XCTAssertEqual(file.target, "raw")
            XCTAssertTrue(file.failure.signature.contains("notRegistered"), file.failure.signature)
        }
        let seedFile = try XCTUnwrap(files.first)

        let replay = try run(["replay", seedFile, "--runs", "2"])
        XCTAssertEqual(replay.status, 1, replay.stdout + replay.stderr)
        // A chaos race comes back with a rate: REPRODUCED when a run failed with the recorded signature, else the
        // violations are another failure (exit 1 all the same).
        let sameSignature = !replay.stdout.contains("with the recorded signature in 0/2")
        XCTAssertTrue(
            replay.stdout.contains(sameSignature ? "RESULT: REPRODUCED (" : "RESULT: FAILED DIFFERENTLY ("), replay.stdout)
        let runLines = replay.stdout.split(separator: "\n").filter { $0.hasPrefix("  run ") }
        XCTAssertEqual(runLines.count, 2, replay.stdout)
        XCTAssertTrue(runLines.contains { $0.contains("violated: ") && $0.contains("runtime-misuse(") }, replay.stdout)
        XCTAssertTrue(replay.stdout.contains("reproduced in "), replay.stdout)
        XCTAssertEqual(replay.stderr, "")

        // The same operations against the guard: the oracle holds.
        let guarded = try run(["replay", seedFile, "--runs", "1", "--target", "guard"])
        XCTAssertEqual(guarded.status, 0, guarded.stdout + guarded.stderr)
        XCTAssertTrue(guarded.stdout.contains("RESULT: NOT REPRODUCED"), guarded.stdout)
    }

    func testControlledRawCampaignWritesASeedFileThatReplaysExactlyInAnotherProcess() throws {
        let out = directory.file("controlled-raw")
        let campaign = try run([
            "run", "--runner", "controlled", "--strategy", "random", "--target", "raw", "--duration", "5", "--seed", "9",
            "--out", out, "--stop-at-first-failure",
        ])
        XCTAssertEqual(campaign.status, 1, campaign.stdout + campaign.stderr)
        XCTAssertTrue(campaign.stdout.contains("controlled runner, strategy random"), campaign.stdout)
        XCTAssertTrue(campaign.stdout.contains("schedules/s"), campaign.stdout)
        XCTAssertTrue(campaign.stdout.contains("steps/s"), campaign.stdout)
        let seedFile = try XCTUnwrap(try seedFiles(in: out).first, "no seed file in \(out)")
        XCTAssertTrue(seedFile.hasSuffix(".json") && seedFile.contains("seed-raw-random-"), seedFile)
        let file = try SeedFileStore.read(seedFile)
        XCTAssertEqual(file.runner, "controlled")
        XCTAssertNotNil(file.schedule?.historyDigest)

        let replay = try run(["replay", seedFile, "--runs", "3"])
        XCTAssertEqual(replay.status, 1, replay.stdout + replay.stderr)
        XCTAssertTrue(replay.stdout.contains("runner controlled (random)"), replay.stdout)
        XCTAssertTrue(replay.stdout.contains("following the recorded schedule"), replay.stdout)
        XCTAssertTrue(replay.stdout.contains("reproduced in 3/3 runs; with the recorded signature in 3/3"), replay.stdout)
        XCTAssertTrue(
            replay.stdout.contains("exact replay: every run followed the schedule step for step and recorded the same history"),
            replay.stdout)
        XCTAssertEqual(replay.stderr, "")
    }

    func testControlledGuardCampaignPasses() throws {
        let campaign = try run([
            "run", "--runner", "controlled", "--depth", "2", "--duration", "2", "--seed", "4", "--no-compare", "--out",
            directory.file("controlled-guard"),
        ])
        XCTAssertEqual(campaign.status, 0, campaign.stdout + campaign.stderr)
        XCTAssertTrue(campaign.stdout.contains("controlled runner, strategy pct depth 2"), campaign.stdout)
        XCTAssertTrue(campaign.stdout.contains("4 workers (one running at a time), 25 operations per worker"), campaign.stdout)
        XCTAssertTrue(campaign.stdout.contains("RESULT: PASS"), campaign.stdout)
    }

    /// --ops N cuts the last round to fit: fewer operations per queue, then fewer queues (it was at least one
    /// operation on every queue: --ops 1 ran 64 operations, --ops 100 ran 128).
    func testOpsCutsTheLastRoundToFit() throws {
        var settings = Campaign.Settings()
        settings.scenario.workers = 64
        settings.scenario.operationsPerWorker = 1_000
        let shapes = [1, 63, 64, 100, 130, 64_000, 1_000_000].map { budget -> [Int] in
            settings.operationBudget = budget
            let configuration = settings.configuration()
            return [configuration.workers, configuration.operationsPerWorker]
        }
        XCTAssertEqual(shapes, [[1, 1], [63, 1], [64, 1], [50, 2], [44, 3], [64, 1_000], [64, 1_000]])
        settings.operationBudget = 100
        XCTAssertEqual(settings.configuration(operationsDone: 99).workers * settings.configuration(operationsDone: 99).operationsPerWorker, 1)

        let outcome = try run(["run", "--ops", "1", "--seed", "3", "--duration", "5", "--no-compare", "--out", directory.file("out")])
        XCTAssertEqual(outcome.status, 0, outcome.stderr)
        let total = try XCTUnwrap(outcome.stderr.split(separator: "\n").first { $0.contains(" rounds, ") })
        XCTAssertTrue(total.hasPrefix("guard-stress: 1 rounds, "), String(total))
        let operations = try XCTUnwrap(Int(total.split(separator: " ")[3].replacingOccurrences(of: ",", with: "")))
        XCTAssertLessThanOrEqual(operations, 5, "one drawn operation (and what its handlers do): \(total)")
    }

    /// A controlled campaign with large rounds gets a step limit that grows with them (a round's own size must not
    /// read as a step-limit violation of a correct guard), unless --max-steps says otherwise.
    func testTheDefaultStepLimitGrowsWithTheRounds() throws {
        let large = try run([
            "run", "--runner", "controlled", "--queues", "2", "--ops-per-queue", "6000", "--duration", "0.1", "--seed", "4",
            "--target", "raw", "--no-compare", "--out", directory.file("large"),
        ])
        XCTAssertTrue(large.stdout.contains("step limit 1,200,000"), large.stdout)
        let small = try run(["run", "--runner", "controlled"] + safety)
        XCTAssertTrue(small.stdout.contains("step limit 1,000,000"), small.stdout)
        XCTAssertEqual(
            ControlledRunner.Settings.defaultStepLimit(
                for: { var configuration = ScenarioConfiguration.controlledDefault; configuration.workers = 4_096; return configuration }()),
            10_240_000)
        var huge = ScenarioConfiguration.controlledDefault
        huge.workers = Int.max
        XCTAssertEqual(ControlledRunner.Settings.defaultStepLimit(for: huge), ControlledRunner.Settings.stepLimits.upperBound)
    }

    func testReplayOfAControlledFileWithABadStrategyExitsTwo() throws {
        let unknown = try directory.write(RunFixtures.editedControlledSeedFile { $0["strategy"] = "dfs" }, to: "dfs.json")
        try assertReplayRejects(unknown, mentioning: "names strategy \"dfs\"")
        let depth = try directory.write(RunFixtures.editedControlledSeedFile { $0["depth"] = 0 }, to: "depth.json")
        try assertReplayRejects(depth, mentioning: "the pct depth must be between 1 and 100 (is 0)")
        let schedule = try directory.write(
            RunFixtures.editedControlledSeedFile { RunFixtures.setScheduleField("workers", to: "0 zz", in: &$0) }, to: "schedule.json")
        try assertReplayRejects(schedule, mentioning: "the schedule cannot be read")
    }

    func testGuardCampaignPasses() throws {
        let out = directory.file("guard-seeds")
        let campaign = try run(["run", "--queues", "16", "--ops", "3000", "--duration", "5", "--seed", "5", "--no-compare", "--out", out])
        XCTAssertEqual(campaign.status, 0, campaign.stdout + campaign.stderr)
        XCTAssertTrue(campaign.stdout.contains("RESULT: PASS"), campaign.stdout)
        XCTAssertTrue(campaign.stdout.contains("target guard, seed 5"), campaign.stdout)
        XCTAssertFalse(campaign.stdout.contains("What the raw runtime"), "--no-compare")
        XCTAssertEqual(try seedFiles(in: out), [])
    }

    func testGuardCampaignComparesWithTheRawRuntime() throws {
        let campaign = try run(["run", "--queues", "8", "--ops", "800", "--duration", "5", "--seed", "3", "--out", directory.file("cmp")])
        XCTAssertEqual(campaign.status, 0, campaign.stdout + campaign.stderr)
        XCTAssertTrue(campaign.stdout.contains("RESULT: PASS"), campaign.stdout)
        XCTAssertTrue(campaign.stdout.contains("What the raw runtime (no guard) would have done"), campaign.stdout)
        XCTAssertTrue(campaign.stdout.contains("notRegistered"), campaign.stdout)
    }

    // MARK: Apple-only targets

    func testTheNSObjectTargetRunsOnlyWhereTheObjectiveCRuntimeIs() throws {
        #if canImport(ObjectiveC)
        let campaign = try run(
            ["run", "--target", "nsobject", "--queues", "8", "--ops", "2000", "--duration", "5", "--seed", "4",
             "--out", directory.file("nsobject")], timeout: 120)
        XCTAssertEqual(campaign.status, 0, campaign.stdout + campaign.stderr)
        XCTAssertTrue(campaign.stdout.contains("target nsobject"), campaign.stdout)
        #else
        assertUsageError(try run(["run", "--target", "nsobject"] + safety), mentioning: "needs the Objective-C runtime")
        assertUsageError(
            try run(["replay", "--target", "nsobject", try edited("any.json") { _ in }]),
            mentioning: "needs the Objective-C runtime")
        try assertReplayRejects(edited("nsobject.json") { $0["target"] = "nsobject" }, mentioning: "needs the Objective-C runtime")
        #endif
    }
}
