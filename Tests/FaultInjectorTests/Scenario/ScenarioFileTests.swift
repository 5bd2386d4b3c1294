@testable import FaultInjector
import FaultInjectorTestSupport
import Foundation
import GuardCore
import XCTest

/// Text scenarios: the format a person writes from a crash report, its defaults and inference, and its errors.
final class ScenarioFileTests: XCTestCase {
    private func parse(_ text: String) throws -> LoadedScenario {
        try ScenarioFile.parse(text, path: "race.scenario")
    }

    /// The message `text` is refused with.
    private func error(_ text: String, file: StaticString = #filePath, line: UInt = #line) -> String {
        do {
            _ = try ScenarioFile.parse(text, path: "race.scenario")
            XCTFail("accepted:\n\(text)", file: file, line: line)
            return ""
        } catch {
            return error.description
        }
    }

    func testTheSmallestScenarioNeedsOnlyItsWorkersAndGetsEveryOtherFieldByDefault() throws {
        let loaded = try parse("""
            # two threads remove the same observer
            worker 0:
              observe c0 o0 k0 [new]
              unobserve c0 o0 k0
            worker 1:
              unobserve c0 o0 k0
            """)
        XCTAssertTrue(loaded.isText)
        XCTAssertEqual(loaded.target, "guard")
        XCTAssertEqual(loaded.scenario.seed, 1)
        XCTAssertEqual(loaded.scenario.operations, [
            [.observe(controller: 0, object: 0, key: .k0, options: .new, action: .none),
             .unobserve(controller: 0, object: 0, key: .k0)],
            [.unobserve(controller: 0, object: 0, key: .k0)],
        ])
        XCTAssertEqual(loaded.lines, [[3, 4], [6]])
        let configuration = loaded.scenario.configuration
        XCTAssertEqual(configuration.workers, 2)
        XCTAssertEqual(configuration.operationsPerWorker, 2)
        XCTAssertEqual(configuration.controllers, 1)
        XCTAssertEqual(configuration.objects, 1)
        XCTAssertEqual(configuration.keys, [.k0])
        XCTAssertFalse(configuration.holdsWeakly(controller: 0))
        XCTAssertFalse(configuration.unobservesInDeinit)
        XCTAssertFalse(configuration.observesInDeinit)
        XCTAssertEqual(configuration.problems, [])
        XCTAssertEqual(loaded.scenario.problems, [])
        guard case .controlled(let settings) = loaded.runner else { return XCTFail("a text scenario runs controlled") }
        XCTAssertEqual(settings.strategy, .random)
        // Its seed file is valid as it is: every field a person would have to guess is filled in.
        let file = loaded.seedFile
        XCTAssertEqual(file.format, SeedFile.formatName)
        XCTAssertEqual(file.toolVersion, ToolVersion.current)
        XCTAssertEqual(file.failure.signature, "")
        XCTAssertEqual(file.operations, [["observe c0 o0 k0 [new]", "unobserve c0 o0 k0"], ["unobserve c0 o0 k0"]])
        XCTAssertEqual(try file.makeScenario(), loaded.scenario)
        XCTAssertNoThrow(try file.makeRunnerChoice())
    }

    func testSlotsAndKeysAreInferredFromEveryPlaceAnOperationNamesThem() throws {
        let loaded = try parse("""
            worker 0:
              observe c2 o0 link.k0 [initial,new] then mutate o4 k1
              link o1 o3
            worker 1:
              mutate o0 gauge
            """)
        let configuration = loaded.scenario.configuration
        XCTAssertEqual(configuration.controllers, 3)
        XCTAssertEqual(configuration.objects, 5)
        XCTAssertEqual(configuration.keys, [.k1, .link, .linkK0, .gauge])
        XCTAssertGreaterThan(configuration.mix[.setGauge], 0, "a set of gauge takes its own lock, as in a drawn scenario")
    }

    func testHeaderLinesSetWhatTheyName() throws {
        let loaded = try parse("""
            description a callback races the observer's release (FBKVOController #83)
            target raw
            seed 0x10
            objects 3
            controllers 2
            weak c1
            deinit unobserve observe
            strategy pct
            depth 2
            step-limit 5000
            worker 0:
              observe c0 o0 k0 []   # trailing comments are fine
            """)
        XCTAssertEqual(loaded.target, "raw")
        XCTAssertEqual(loaded.description, "a callback races the observer's release (FBKVOController #83)")
        XCTAssertEqual(loaded.seedFile.description, loaded.description)
        XCTAssertEqual(loaded.scenario.seed, 16)
        let configuration = loaded.scenario.configuration
        XCTAssertEqual(configuration.objects, 3)
        XCTAssertEqual(configuration.controllers, 2)
        XCTAssertEqual((0..<2).map { configuration.holdsWeakly(controller: $0) }, [false, true])
        XCTAssertTrue(configuration.unobservesInDeinit)
        XCTAssertTrue(configuration.observesInDeinit)
        XCTAssertGreaterThan(configuration.mix[.unobserve], 0)
        XCTAssertEqual(configuration.mix[.unobserveObject], 0)
        guard case .controlled(let settings) = loaded.runner else { return XCTFail("controlled") }
        XCTAssertEqual(settings.strategy, .pct(depth: 2))
        XCTAssertEqual(settings.stepLimit, 5000)
        XCTAssertEqual(loaded.seedFile.strategy, "pct")
        XCTAssertEqual(loaded.seedFile.depth, 2)
        XCTAssertEqual(loaded.seedFile.stepLimit, 5000)

        let chaos = try parse("runner chaos\nfaults off\nworker 0:\n  mutate o0 k0\n")
        XCTAssertEqual(chaos.runner, .chaos)
        XCTAssertFalse(chaos.scenario.configuration.faults.isEnabled)
        XCTAssertEqual(chaos.seedFile.runner, "chaos")
        XCTAssertNil(chaos.seedFile.strategy)
    }

    func testMistakesAreReportedWithLineAndColumnAndWhatWasExpected() {
        XCTAssertEqual(
            error("target guard\nworker 0:\n  observe c0 o0 k0 [new]\n  observe c0 o0 k1 [inital]\n"),
            "race.scenario:4:21: unknown option \"inital\" (did you mean \"initial\"?) (expected one of: initial, new, old, prior)")
        XCTAssertEqual(
            error("worker 0:\n  obsrve c0 o0 k0 []\n"),
            "race.scenario:2:3: unknown operation \"obsrve\" (did you mean \"observe\"?) (expected one of: "
                + OperationParser.verbs.joined(separator: ", ") + ")")
        XCTAssertEqual(
            error("worker 0:\n  observe o0 c0 k0 []\n"),
            "race.scenario:2:11: expected a controller slot (c0, c1, ...), found \"o0\"")
        XCTAssertEqual(
            error("worker 0:\n  observe c0 o0 k0\n"),
            "race.scenario:2:19: expected the observing options in brackets, like [new], [initial,new] or []; found the end of the line")
        XCTAssertEqual(
            error("worker 0:\n\tmutate o0 sum\n"),
            "race.scenario:2:12: mutate sets " + StressKey.mutated.map(\.listedName).joined(separator: ", ")
                + ", not sum (sum is computed from other keys)")
        // Keys whose names look alike read as the two keys they are.
        XCTAssertEqual(StressKey.composedCafe.listedName, "caf\u{E9} (caf\\u{E9})")
        XCTAssertEqual(StressKey.decomposedCafe.listedName, "cafe\u{301} (cafe\\u{301})")
        XCTAssertEqual(StressKey.k0.listedName, "k0")
        XCTAssertEqual(
            error("worker 0:\n  observe c0 o0 k0 [] then unobserve-slf\n"),
            "race.scenario:2:28: unknown handler action \"unobserve-slf\" (did you mean \"unobserve-self\"?) (expected one of: "
                + "none, unobserve-self, unobserve-all, release-controller, mutate oN k0|k1|k2, observe oN KEY, adopt oN)")
        XCTAssertEqual(
            error("worker 0:\n  observe c0 o0 k0 [new] extra\n"),
            "race.scenario:2:26: unexpected \"extra\" after the operation")
        XCTAssertEqual(
            error("worker 0:\n  link o2 o1\n"),
            "race.scenario:2:3: a link must go to a later object slot than its own (links never form a cycle)")
        XCTAssertEqual(
            error("worker 0:\n  observe c0 o0 k0 [] context 7\n"),
            "race.scenario:2:3: contexts are numbered 1 to 3")
        XCTAssertTrue(
            error("target gaurd\nworker 0:\n  mutate o0 k0\n").hasPrefix(
                "race.scenario:1:8: unknown target \"gaurd\" (did you mean \"guard\"?) (expected one of: guard, raw, token"))
    }

    func testMistakesInTheShapeOfTheFileAreReportedWhereTheyAre() {
        XCTAssertEqual(
            error("observe c0 o0 k0 []\n"),
            "race.scenario:1:1: an operation before the first worker: operations belong to a worker, so start them with a line `worker 0:`")
        XCTAssertEqual(
            error("worker 1:\n  mutate o0 k0\n"),
            "race.scenario:1:8: expected worker 0 here, found worker 1 (workers are numbered from 0, in order)")
        XCTAssertEqual(
            error("worker 0:\n  mutate o0 k0\nworker 0:\n"),
            "race.scenario:3:8: expected worker 1 here, found worker 0 (workers are numbered from 0, in order)")
        XCTAssertEqual(
            error("worker 0:\n  mutate o0 k0\nseed 3\n"),
            "race.scenario:3:1: settings come before the workers (worker 0 starts on line 1): move \"seed\" up")
        XCTAssertEqual(
            error("seed 3\nseed 4\nworker 0:\n  mutate o0 k0\n"),
            "race.scenario:2:1: \"seed\" is given twice (first on line 1); give it once")
        XCTAssertEqual(
            error("# nothing but a comment\n"),
            "race.scenario:1:1: the scenario has no workers: start each worker's operations with a line `worker 0:`, `worker 1:`, ...")
        XCTAssertEqual(
            error("tagret raw\nworker 0:\n  mutate o0 k0\n"),
            "race.scenario:1:1: unknown setting or operation \"tagret\" (did you mean \"target\"?) (expected a setting such "
                + "as target or weak, a line `worker N:`, or an operation such as observe)")
        XCTAssertEqual(
            error("objects 2\nworker 0:\n  mutate o0 k0\n  link o1 o2\n"),
            "race.scenario:4:11: o2 is beyond the 2 object slots line 1 declares (o0 to o1)")
        XCTAssertEqual(
            error("controllers 1\nweak c3\nworker 0:\n  mutate o0 k0\n"),
            "race.scenario:2:1: c3 is beyond the 1 controller slots line 1 declares (c0 to c0)")
        XCTAssertEqual(
            error("seed many\nworker 0:\n  mutate o0 k0\n"),
            "race.scenario:1:6: seed needs a whole number from 0 to \(UInt64.max) (decimal or 0x hex), not \"many\"")
        XCTAssertEqual(
            error("depth 2\nworker 0:\n  mutate o0 k0\n"),
            "race.scenario:1:1: depth belongs to strategy pct (this scenario's strategy is random by default; add a line `strategy pct`)")
        XCTAssertEqual(
            error("runner chaos\nstrategy pct\nworker 0:\n  mutate o0 k0\n"),
            "race.scenario:2:1: strategy needs runner controlled: a chaos run has no schedule")
        XCTAssertEqual(
            error("weak o1\nworker 0:\n  mutate o0 k0\n"),
            "race.scenario:1:6: weak names controller slots (c0, c1, ...) or none, not \"o1\"")
    }

    func testTheDetailedMessageShowsTheLineWithACaretUnderTheColumn() throws {
        do {
            _ = try ScenarioFile.parse("worker 0:\n  observe c0 o0 k0 [inital]\n", path: "x.scenario")
            XCTFail("accepted")
        } catch {
            XCTAssertEqual(
                error.detailedDescription,
                """
                x.scenario:2:21: unknown option "inital" (did you mean "initial"?) (expected one of: initial, new, old, prior)
                    2 |   observe c0 o0 k0 [inital]
                      |                     ^
                """)
        }
    }

    func testOptionsMayHaveSpacesInsideTheirBracketsAndDescriptionsKeepTheirHashes() throws {
        let loaded = try parse("description FBKVOController #57\nworker 0:\n  observe c0 o0 k0 [ initial, new ] then unobserve-self\n")
        XCTAssertEqual(loaded.description, "FBKVOController #57")
        XCTAssertEqual(
            loaded.scenario.operations[0],
            [.observe(controller: 0, object: 0, key: .k0, options: [.initial, .new], action: .unobserveSelf)])
    }

    func testEveryOperationFormReadsAsItsOwnText() throws {
        let configuration = ScenarioConfiguration()
        var generator = Xoshiro256StarStar(seed: 9)
        let drawn = OperationDrawer(configuration: configuration).draw(count: 400, using: &generator)
        let text = "worker 0:\n" + drawn.map { "  \($0)" }.joined(separator: "\n")
        let loaded = try parse(text)
        XCTAssertEqual(loaded.scenario.operations[0], drawn)
    }
}

/// One loader for seed files and text scenarios, and the round trip between them.
final class ScenarioFileLoadingTests: XCTestCase {
    private var directory: TemporaryDirectory!

    override func setUpWithError() throws {
        directory = try TemporaryDirectory("fi-scenarios")
    }

    override func tearDown() {
        directory?.remove()
        directory = nil
    }

    /// A file named `.json` is a seed file (its errors are a seed file's); any other is a seed file when its content
    /// is JSON, a text scenario otherwise.
    func testTheNameOrTheContentDecidesWhetherAFileIsASeedFileOrATextScenario() throws {
        let json = try directory.write(try RunFixtures.controlledSeedFileData(), to: "any-name.txt")
        let seed = try ScenarioFile.load(json)
        XCTAssertFalse(seed.isText)
        XCTAssertEqual(seed.seedFile, try SeedFileStore.read(json))
        XCTAssertEqual(seed.scenario, RunFixtures.controlledRawFailure.scenario)
        XCTAssertEqual(seed.target, "raw")
        XCTAssertEqual(seed.lines, [])

        let text = try directory.write("worker 0:\n  mutate o0 k0\n", to: "any-name")
        XCTAssertTrue(try ScenarioFile.load(text).isText)
        let prose = try directory.write("worker 0:\n  mutate o0 k0\n", to: "prose.json")
        XCTAssertThrowsError(try ScenarioFile.load(prose)) { error in
            XCTAssertTrue("\(error)".hasPrefix("\(prose) is not JSON"), "\(error)")
        }
    }

    func testFilesThatCannotBeReadSayWhy() throws {
        func message(_ path: String) -> String {
            do {
                _ = try ScenarioFile.load(path)
                return "accepted"
            } catch {
                return error.description
            }
        }
        XCTAssertEqual(message(directory.file("missing.scenario")), "cannot read \(directory.file("missing.scenario")): no such file")
        XCTAssertEqual(message(directory.path), "cannot read \(directory.path): it is a directory, not a file")
        let blank = try directory.write(" \n\n", to: "blank.scenario")
        XCTAssertEqual(message(blank), "\(blank) is empty: a scenario needs at least a `worker 0:` line and an operation")
        let broken = try directory.write("{\"format\": \"kvoguard-seed\"", to: "broken.json")
        XCTAssertEqual(message(broken), "\(broken) is truncated: its JSON ends before the seed file is complete")
        let binary = directory.file("binary.scenario")
        try Data([0xFF, 0xFE, 0x00, 0x80]).write(to: URL(fileURLWithPath: binary))
        XCTAssertEqual(message(binary), "cannot read \(binary): it is not text (not UTF-8)")
    }

    /// A controlled seed file written as text and read back runs the same operations with the same settings: the
    /// very same run, history digest for history digest.
    func testASeedFileWrittenAsTextRunsExactlyAsTheSeedFile() throws {
        let file = SeedFile(result: RunFixtures.controlledRawFailure, toolVersion: ToolVersion.current)
        let text = try ScenarioFile.text(of: file)
        XCTAssertTrue(text.contains("target raw\nseed 5\nstrategy pct\nexpected-steps"), text)
        XCTAssertTrue(text.contains("weak c2\n"), text)
        XCTAssertTrue(text.contains("deinit unobserve unobserve-object observe\n"), text)
        let loaded = try ScenarioFile.parse(text)
        XCTAssertEqual(loaded.scenario.operations, try file.makeScenario().operations)
        XCTAssertEqual(loaded.runner, try file.makeRunnerChoice())
        XCTAssertEqual(loaded.target, file.target)

        let fromFile = try Replayer(file: file).replay(runs: 1)
        let fromText = try Replayer(file: loaded.seedFile).replay(runs: 1)
        let digest = try XCTUnwrap(fromFile.lastResult?.history.digest)
        XCTAssertEqual(fromText.lastResult?.history.digest, digest)
        XCTAssertEqual(fromText.signatures, fromFile.signatures)
        XCTAssertEqual(fromFile.exactRuns, 1, "the recorded schedule itself replays: \(fromFile.mismatches)")
    }

    /// A text scenario's seed file written as text again gives the same text (nothing is added that was not said).
    func testATextScenarioSurvivesTheRoundTripThroughItsSeedFile() throws {
        let text = """
            description two threads remove the same observer
            target bug-lock-missing
            seed 7
            weak c1
            worker 0:
              observe c0 o0 k0 [new]
              unobserve c0 o0 k0
            worker 1:
              observe c1 o0 k0 [initial,new] then unobserve-self
              unobserve c0 o0 k0

            """
        let loaded = try ScenarioFile.parse(text)
        XCTAssertEqual(try ScenarioFile.text(of: loaded.seedFile), text)
        let path = try SeedFileStore.write(loaded.seedFile, into: directory.path)
        let again = try ScenarioFile.load(path)
        XCTAssertFalse(again.isText)
        XCTAssertEqual(again.scenario, loaded.scenario)
        XCTAssertEqual(again.description, "two threads remove the same observer")
    }
}
