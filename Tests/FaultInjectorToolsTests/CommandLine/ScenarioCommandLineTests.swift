@testable import FaultInjector
import FaultInjectorTestSupport
import Foundation
import XCTest

/// Text scenarios on the command line: `guard-stress scenario`, `help scenario`, `replay --record` then `shrink`,
/// and `run --scenario`, run as a subprocess (see ``GuardStressProcess``).
final class ScenarioCommandLineTests: XCTestCase {
    private var directory: TemporaryDirectory!

    override func setUpWithError() throws {
        directory = try TemporaryDirectory("fi-scenario-cli")
    }

    override func tearDown() {
        directory?.remove()
        directory = nil
    }

    private func run(_ arguments: [String], file: StaticString = #filePath, line: UInt = #line) throws -> GuardStressProcess.Outcome {
        try GuardStressProcess.run(arguments, in: directory, timeout: 120, file: file, line: line)
    }

    /// Two threads remove the same observer.
    private let removeTwice = """
        # two threads remove the same observer
        target guard
        worker 0:
          observe c0 o0 k0 [new]
          unobserve c0 o0 k0
        worker 1:
          unobserve c0 o0 k0

        """

    /// The observer is released on one thread while a change is delivered on another.
    private let releaseWhileDelivering = """
        target raw
        worker 0:
          observe c0 o0 k0 [new]
          mutate o0 k0
        worker 1:
          release-observer c0

        """

    func testScenarioChecksATextScenarioAndPrintsItWithItsSettings() throws {
        try directory.write(removeTwice, to: "race.scenario")
        let outcome = try run(["scenario", "race.scenario"])
        XCTAssertEqual(outcome.status, 0, outcome.stderr)
        XCTAssertEqual(
            outcome.stdout,
            "# race.scenario: a text scenario; 2 workers, 3 operations; slots c0, o0; target guard; runs controlled (random), seed 1\n"
                + "target guard\nworker 0:\n  observe c0 o0 k0 [new]\n  unobserve c0 o0 k0\nworker 1:\n  unobserve c0 o0 k0\n")
    }

    func testScenarioPrintsASeedFileAsAScenarioThatRunsTheSame() throws {
        let seed = try directory.write(RunFixtures.controlledSeedFileData(), to: "seed.json")
        let outcome = try run(["scenario", seed])
        XCTAssertEqual(outcome.status, 0, outcome.stderr)
        XCTAssertTrue(outcome.stdout.contains("# the seed file records the failure \(RunFixtures.controlledRawFailure.verdict.signature)"), outcome.stdout)
        let text = outcome.stdout.split(separator: "\n").filter { !$0.hasPrefix("#") }.joined(separator: "\n")
        XCTAssertEqual(try ScenarioFile.parse(text).scenario.operations, RunFixtures.controlledRawFailure.scenario.operations)
    }

    func testAMistakeIsNamedByLineAndColumnWithTheLineAndACaret() throws {
        try directory.write("worker 0:\n  observe c0 o0 k0 [nwe]\n", to: "typo.scenario")
        for command in [["scenario"], ["replay"], ["explain"], ["shrink"], ["run", "--scenario"]] {
            let outcome = try run(command + ["typo.scenario"])
            XCTAssertEqual(outcome.status, 2, "\(command): \(outcome.stderr)")
            XCTAssertEqual(
                outcome.stderrLines,
                [
                    "guard-stress: typo.scenario:2:21: unknown option \"nwe\" (did you mean \"new\"?) (expected one of: initial, new, old, prior)",
                    "    2 |   observe c0 o0 k0 [nwe]",
                    "      |                     ^",
                ], "\(command)")
        }
    }

    func testHelpScenarioShowsTheWholeGrammarOnOneScreen() throws {
        let outcome = try run(["help", "scenario"])
        XCTAssertEqual(outcome.status, 0)
        for verb in OperationParser.verbs { XCTAssertTrue(outcome.stdout.contains(verb), "help scenario lacks \(verb)") }
        for setting in ScenarioFile.settings { XCTAssertTrue(outcome.stdout.contains("  \(setting.keyword) "), setting.keyword) }
        for word in ["[initial,new,old,prior]", "unobserve-self", "adopt oN", "link.gauge", "\\.peer!.k0", "worker N:"] {
            XCTAssertTrue(outcome.stdout.contains(word), "help scenario lacks \(word)")
        }
        XCTAssertTrue(try run(["--help"]).stdout.contains("guard-stress scenario FILE"))
    }

    /// A failure on the raw runtime: recorded, then shrunk; the shrinker says it is a sequential misuse.
    func testReplayRecordWritesTheFailureThatShrinkThenTakes() throws {
        try directory.write(removeTwice, to: "race.scenario")
        let replay = try run(["replay", "race.scenario", "--target", "raw", "--record", "--runs", "2"])
        XCTAssertEqual(replay.status, 1, replay.stdout + replay.stderr)
        XCTAssertTrue(replay.stdout.contains("violated in 2/2 runs (the file records no failure to compare with)"), replay.stdout)
        XCTAssertTrue(replay.stdout.contains("recorded run 1's failure runtime-misuse(notRegistered) in race.recorded.json with the schedule it took"), replay.stdout)
        XCTAssertTrue(replay.stdout.contains("RESULT: VIOLATED ("), replay.stdout)
        XCTAssertTrue(replay.stdout.hasSuffix("(exit 1)\n"), replay.stdout)
        XCTAssertFalse(replay.stdout.contains("REPRODUCED"), "nothing was recorded to reproduce")
        let recorded = try SeedFileStore.read(directory.file("race.recorded.json"))
        XCTAssertEqual(recorded.target, "raw")
        XCTAssertEqual(recorded.failure.signature, "runtime-misuse(notRegistered)")
        XCTAssertNotNil(recorded.schedule?.historyDigest)

        let exact = try run(["replay", "race.recorded.json", "--runs", "2"])
        XCTAssertTrue(exact.stdout.contains("exact replay: every run followed the schedule"), exact.stdout)
        XCTAssertTrue(exact.stdout.contains("RESULT: REPRODUCED ("), exact.stdout)
        XCTAssertTrue(exact.stdout.hasSuffix("(exit 1)\n"), exact.stdout)

        let shrink = try run(["shrink", "race.recorded.json", "--verify", "3"])
        XCTAssertEqual(shrink.status, 0, shrink.stdout + shrink.stderr)
        XCTAssertTrue(shrink.stdout.contains("not a race: a sequential misuse"), shrink.stdout)
        XCTAssertEqual(try SeedFileStore.read(directory.file("race.recorded.shrunk.json")).operations, [["unobserve c0 o0 k0"]])
    }

    /// A race on the raw runtime: recorded, then shrunk keeping both workers.
    func testARecordedRaceShrinksKeepingBothWorkers() throws {
        try directory.write(releaseWhileDelivering, to: "release.scenario")
        let replay = try run(["replay", "release.scenario", "--record", "--out", "found.json", "--runs", "1"])
        XCTAssertEqual(replay.status, 1, replay.stdout + replay.stderr)
        let shrink = try run(["shrink", "found.json", "--verify", "3"])
        XCTAssertEqual(shrink.status, 0, shrink.stdout + shrink.stderr)
        XCTAssertTrue(shrink.stdout.contains("a race: this failure needs the workers to overlap"), shrink.stdout)
        let shrunk = try SeedFileStore.read(directory.file("found.shrunk.json"))
        XCTAssertEqual(shrunk.operations?.count, 2)
        XCTAssertEqual(shrunk.shrunk?.needsConcurrency, true)
    }

    func testRecordingWithNothingToRecordWritesNothing() throws {
        try directory.write(removeTwice, to: "race.scenario")
        let replay = try run(["replay", "race.scenario", "--record", "--runs", "2"])
        XCTAssertEqual(replay.status, 0, replay.stdout + replay.stderr)
        XCTAssertTrue(replay.stdout.contains("nothing to record: the oracle held in every run (no file written)"), replay.stdout)
        XCTAssertTrue(replay.stdout.contains("RESULT: PASSED (the oracle held in every run) (exit 0)"), replay.stdout)
        XCTAssertFalse(FileManager.default.fileExists(atPath: directory.file("race.recorded.json")))
    }

    func testShrinkingAScenarioSaysHowToGetAFailureToShrink() throws {
        try directory.write(removeTwice, to: "race.scenario")
        let outcome = try run(["shrink", "race.scenario"])
        XCTAssertEqual(outcome.status, 2)
        XCTAssertTrue(outcome.stderr.contains("race.scenario records no failure (a text scenario says only what to run)"), outcome.stderr)
        XCTAssertTrue(outcome.stderr.contains("guard-stress replay race.scenario --record"), outcome.stderr)
    }

    func testRunScenarioRunsItsOperationsEveryRoundUnderManySchedules() throws {
        try directory.write(releaseWhileDelivering, to: "release.scenario")
        let outcome = try run([
            "run", "--scenario", "release.scenario", "--runner", "controlled", "--duration", "1", "--out", "seeds",
            "--max-seed-files", "2", "--in-process",
        ])
        XCTAssertEqual(outcome.status, 1, outcome.stdout + outcome.stderr)
        XCTAssertTrue(outcome.stderr.contains("scenario release.scenario (2 workers, 3 operations)"), outcome.stderr)
        let written = try FileManager.default.contentsOfDirectory(atPath: directory.file("seeds")).filter { $0.hasSuffix(".json") }
        XCTAssertFalse(written.isEmpty)
        var seeds: Set<String> = []
        for name in written {
            let file = try SeedFileStore.read(directory.file("seeds/\(name)"))
            XCTAssertEqual(file.operations, [["observe c0 o0 k0 [new]", "mutate o0 k0"], ["release-observer c0"]])
            XCTAssertEqual(file.target, "raw")
            seeds.insert(file.seed)
        }
        XCTAssertEqual(seeds.count, written.count, "each round its own seed, so its own schedule")

        for option in [["--queues", "4"], ["--profile", "teardown"], ["--objects", "2"]] {
            GuardStressProcess.assertUsageError(
                try run(["run", "--scenario", "release.scenario"] + option), mentioning: "\(option[0]) does not go with --scenario")
        }
        GuardStressProcess.assertUsageError(
            try run(["replay", "release.scenario", "--out", "x.json"]), mentioning: "--out names the file --record writes")
    }
}
