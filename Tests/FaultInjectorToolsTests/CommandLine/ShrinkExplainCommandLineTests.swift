@testable import FaultInjector
import FaultInjectorTestSupport
import Foundation
import XCTest

/// The `guard-stress shrink` and `explain` subcommands, run as a subprocess (see ``GuardStressProcess``).
final class ShrinkExplainCommandLineTests: XCTestCase {
    private var directory: TemporaryDirectory!

    override func setUpWithError() throws {
        directory = try TemporaryDirectory("fi-shrink-cli")
    }

    override func tearDown() {
        directory?.remove()
        directory = nil
    }

    private func run(_ arguments: [String], file: StaticString = #filePath, line: UInt = #line) throws -> GuardStressProcess.Outcome {
        try GuardStressProcess.run(arguments, in: directory, timeout: 60, file: file, line: line)
    }

    /// A failing controlled raw-runtime seed file in the test directory.
    private func controlledSeedFile(_ name: String = "controlled.json") throws -> String {
        try directory.write(RunFixtures.controlledSeedFileData(), to: name)
    }

    // MARK: Help

    func testHelpDescribesBothCommandsTheirOptionsAndExitCodes() throws {
        let overview = try run(["--help"])
        XCTAssertTrue(overview.stdout.contains("guard-stress shrink FILE"), overview.stdout)
        XCTAssertTrue(overview.stdout.contains("guard-stress explain FILE [--html OUT.html]"), overview.stdout)
        XCTAssertTrue(overview.stdout.contains("the shrunk file was written"), "exit codes per command: \(overview.stdout)")
        let shrink = try run(["shrink", "--help"])
        XCTAssertEqual(shrink.status, 0)
        for phrase in ["--out FILE", "--runs K", "(1-p)^K", "--max-candidates N", "--max-seconds S", "--verify N", "Exits 0", "ddmin"] {
            XCTAssertTrue(shrink.stdout.contains(phrase), "shrink help lacks \(phrase)")
        }
        let explain = try run(["help", "explain"])
        XCTAssertEqual(explain.status, 0)
        for phrase in ["--html OUT.html", "self-contained", "one replay, not necessarily", "Exits 1"] {
            XCTAssertTrue(explain.stdout.contains(phrase), "explain help lacks \(phrase)")
        }
    }

    // MARK: Usage errors

    func testUsageErrorsExitTwo() throws {
        let seed = try controlledSeedFile()
        let checks: [([String], String)] = [
            (["shrink"], "shrink needs a seed file"),
            (["shrink", "a.json", "b.json"], "shrink takes one seed file, not 2"),
            (["shrink", seed, "--runs", "0"], "--runs needs a whole number from 1 to 1000"),
            (["shrink", seed, "--max-seconds", "soon"], "--max-seconds needs a number of seconds"),
            (["shrink", seed, "--frobnicate"], "unknown option '--frobnicate'"),
            (["shrink", seed, "--out", seed], "shrink never overwrites its input"),
            (["explain"], "explain needs a seed file"),
            (["explain", seed, "--width", "3"], "--width needs a whole number from 40"),
            (["explain", seed, "--html"], "--html needs a value"),
        ]
        for (arguments, phrase) in checks {
            GuardStressProcess.assertUsageError(try run(arguments), mentioning: phrase)
        }
        let existing = try directory.write("{}", to: "existing.json")
        GuardStressProcess.assertUsageError(
            try run(["shrink", seed, "--out", existing]), mentioning: "--out \(existing) exists; pass --force")
        XCTAssertEqual(try String(contentsOfFile: existing, encoding: .utf8), "{}")
    }

    // MARK: Bad seed files

    func testEveryBadSeedFileExitsTwoForBothCommands() throws {
        let data = try RunFixtures.rawSeedFileData()
        var files: [(String, String)] = [
            (directory.file("absent.json"), "no such file"),
            (try directory.write("", to: "empty.json"), "is empty"),
            (try directory.write(data.prefix(data.count / 2), to: "half.json"), "is truncated"),
            (try directory.write("not a seed file\n", to: "prose.json"), "is not JSON"),
            (try directory.write("[1]\n", to: "array.json"), "expected a JSON object, found a list"),
        ]
        func edited(_ name: String, _ phrase: String, _ edit: (inout [String: Any]) -> Void) throws {
            files.append((try directory.write(RunFixtures.editedRawSeedFile(edit), to: name), phrase))
        }
        try edited("format.json", "is not a KVOGuard seed file") { $0["format"] = "other" }
        try edited("version.json", "is seed file version 3") { $0["version"] = 3 }
        try edited("missing.json", "\"scenario.workers\" is missing") { RunFixtures.setScenarioField("workers", to: nil, in: &$0) }
        try edited("target.json", "names target \"planted\"") { $0["target"] = "planted" }
        try edited("runner.json", "names runner \"quantum\"") { $0["runner"] = "quantum" }
        try edited("seed.json", "the seed \"twelve\" is not a whole number") { $0["seed"] = "twelve" }
        try edited("operation.json", "\"mutate o1 sum\" is not an operation") {
            RunFixtures.editOperations(in: &$0) { $0[0][0] = "mutate o1 sum" }
        }
        try edited("slot.json", "names a slot beyond") { RunFixtures.editOperations(in: &$0) { $0[0][0] = "release-object o6" } }
        files.append(
            (try directory.write(RunFixtures.editedControlledSeedFile { $0["strategy"] = "dfs" }, to: "dfs.json"), "names strategy \"dfs\""))
        files.append(
            (try directory.write(
                RunFixtures.editedControlledSeedFile { RunFixtures.setScheduleField("workers", to: "0 zz", in: &$0) }, to: "schedule.json"),
             "the schedule cannot be read"))
        for (path, phrase) in files {
            for command in [["shrink", path, "--max-seconds", "5"], ["explain", path]] {
                let outcome = try run(command)
                XCTAssertEqual(outcome.status, 2, "\(command): \(outcome.stderr)")
                XCTAssertEqual(outcome.stderrLines.count, 1, "\(command): \(outcome.stderr)")
                XCTAssertTrue(outcome.stderr.hasPrefix("guard-stress: "), outcome.stderr)
                XCTAssertTrue(outcome.stderr.contains(phrase), "\(command): \"\(outcome.stderr)\" does not mention \"\(phrase)\"")
                XCTAssertEqual(outcome.stdout, "", "\(command) must not start")
            }
        }
        let nothing = try directory.write(
            RunFixtures.editedRawSeedFile { object in
                var failure = object["failure"] as? [String: Any] ?? [:]
                failure["signature"] = ""
                object["failure"] = failure
            }, to: "nothing.json")
        let outcome = try run(["shrink", nothing])
        XCTAssertEqual(outcome.status, 2, outcome.stderr)
        XCTAssertTrue(outcome.stderr.contains("records no failure"), outcome.stderr)
    }

    // MARK: Shrinking and explaining a real failure

    func testShrinkWritesASmallerFileBesideTheInputThatExplainTells() throws {
        let seed = try controlledSeedFile()
        let before = try Data(contentsOf: URL(fileURLWithPath: seed))
        let outcome = try run(["shrink", seed, "--verify", "5"])
        XCTAssertEqual(outcome.status, 0, outcome.stdout + outcome.stderr)
        let shrunkPath = directory.file("controlled.shrunk.json")
        XCTAssertTrue(outcome.stdout.contains("wrote \(shrunkPath)"), outcome.stdout)
        XCTAssertTrue(outcome.stdout.contains("one run decides"), "says how candidates are judged: \(outcome.stdout)")
        XCTAssertTrue(outcome.stdout.contains("exactly in 5/5"), outcome.stdout)
        XCTAssertTrue(outcome.stdout.contains("RESULT: SHRUNK"), outcome.stdout)
        XCTAssertTrue(outcome.stderr.contains("candidates]"), "progress goes to stderr: \(outcome.stderr)")
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: seed)), before, "the input is untouched")

        let original = try SeedFileStore.read(seed)
        let shrunk = try SeedFileStore.read(shrunkPath)
        XCTAssertEqual(shrunk.failure.signature, original.failure.signature)
        XCTAssertLessThan((shrunk.operations ?? []).joined().count, (original.operations ?? []).joined().count)
        XCTAssertEqual(shrunk.shrunk?.from, "controlled.json")

        let replay = try run(["replay", shrunkPath, "--runs", "3"])
        XCTAssertEqual(replay.status, 1)
        XCTAssertTrue(replay.stdout.contains("exact replay: every run followed the schedule"), replay.stdout)

        let html = directory.file("story.html")
        let explain = try run(["explain", shrunkPath, "--html", html])
        XCTAssertEqual(explain.status, 1, "the explained run violates the oracle: \(explain.stderr)")
        XCTAssertTrue(explain.stdout.contains("an exact replay of the recorded schedule"), explain.stdout)
        XCTAssertTrue(explain.stdout.contains("◄ ✗1"), explain.stdout)
        XCTAssertTrue(explain.stdout.contains("step │ worker 0"), explain.stdout)
        XCTAssertTrue(explain.stdout.contains("wrote \(html)"), explain.stdout)
        let page = try String(contentsOfFile: html, encoding: .utf8)
        XCTAssertTrue(page.contains("<svg"))
        XCTAssertFalse(page.contains("http"))

        let again = try run(["shrink", seed, "--quiet", "--verify", "1"])
        XCTAssertEqual(again.status, 0)
        XCTAssertTrue(again.stdout.contains("wrote \(directory.file("controlled.shrunk-2.json"))"), "never overwrites: \(again.stdout)")
        XCTAssertEqual(again.stderr, "", "--quiet prints no progress")
        let forced = try run(["shrink", seed, "--quiet", "--verify", "1", "--out", shrunkPath, "--force"])
        XCTAssertEqual(forced.status, 0, forced.stdout + forced.stderr)
    }

    /// A `.running.json` file records a round whose process died before its verdict: no run shows `unfinished`,
    /// so shrink refuses it up front and says how to get a file it can shrink.
    func testTheSeedFileOfAnUnfinishedRoundIsRefusedWithAdvice() throws {
        let file = SeedFile(
            roundAboutToRun: RunFixtures.scenario, target: "raw", runner: .controlled(ControlledRunner.Settings()),
            toolVersion: "test")
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        let path = try directory.write(try encoder.encode(file), to: "seed-raw-pct-1.running.json")
        let outcome = try run(["shrink", path])
        XCTAssertEqual(outcome.status, 2, outcome.stdout + outcome.stderr)
        XCTAssertEqual(outcome.stdout, "", "nothing is run")
        XCTAssertEqual(outcome.stderrLines.count, 1, outcome.stderr)
        for phrase in ["a round that never finished", "cannot be shrunk", "guard-stress replay", "seed file written after"] {
            XCTAssertTrue(outcome.stderr.contains(phrase), "lacks \(phrase): \(outcome.stderr)")
        }
        XCTAssertFalse(outcome.stderr.contains("--runs"), outcome.stderr)
        XCTAssertEqual(try directory.contents().filter { $0.contains("shrunk") }, [])
    }

    func testAFileWhoseFailureDoesNotComeBackExitsOneAndWritesNothing() throws {
        let seed = try directory.write(
            RunFixtures.editedControlledSeedFile { object in
                var failure = object["failure"] as? [String: Any] ?? [:]
                failure["signature"] = "missing-delivery"
                object["failure"] = failure
            }, to: "other.json")
        let outcome = try run(["shrink", seed])
        XCTAssertEqual(outcome.status, 1, outcome.stdout + outcome.stderr)
        XCTAssertTrue(outcome.stdout.contains("did not reproduce"), outcome.stdout)
        XCTAssertTrue(outcome.stdout.contains("RESULT: NOT REPRODUCED"), outcome.stdout)
        XCTAssertFalse(FileManager.default.fileExists(atPath: directory.file("other.shrunk.json")))
    }

    func testAChaosFileIsShrunkWithTheRunsPerCandidateStatedAndExplainedAsOneReplay() throws {
        let seed = try directory.write(
            RunFixtures.editedRawSeedFile { object in
                RunFixtures.setScenarioField("workers", to: 2, in: &object)
                RunFixtures.setScenarioField("operationsPerWorker", to: 3, in: &object)
                RunFixtures.editOperations(in: &object) { operations in
                    operations = [["mutate o0 k0", "unobserve c1 o2 k1", "mutate o1 k2"], ["observe c2 o0 k0 [new]", "unobserve c2 o0 k0", "mutate o0 k1"]]
                }
                var failure = object["failure"] as? [String: Any] ?? [:]
                failure["signature"] = "runtime-misuse(notRegistered)"
                object["failure"] = failure
            }, to: "chaos.json")
        let outcome = try run(["shrink", seed, "--runs", "4", "--verify", "4"])
        XCTAssertEqual(outcome.status, 0, outcome.stdout + outcome.stderr)
        XCTAssertTrue(outcome.stdout.contains("each candidate: up to 4 chaos runs"), outcome.stdout)
        XCTAssertTrue(outcome.stdout.contains("wrongly kept out with probability"), outcome.stdout)
        XCTAssertTrue(outcome.stdout.contains("worker 0: unobserve c0 o0 k0\n"), outcome.stdout)
        let explain = try run(["explain", directory.file("chaos.shrunk.json")])
        XCTAssertEqual(explain.status, 1)
        XCTAssertTrue(explain.stdout.contains("one chaos replay"), explain.stdout)
        XCTAssertTrue(explain.stdout.contains("order │ worker 0"), explain.stdout)
    }
}
