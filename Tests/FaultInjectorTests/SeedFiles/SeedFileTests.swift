@testable import FaultInjector
import FaultInjectorTestSupport
import Foundation
import GuardCore
import XCTest

/// Seed files: written, read back and replayed, and every bad file refused with its own error.
final class SeedFileTests: XCTestCase, SeedFileReadingTestCase {
    var directory: TemporaryDirectory!

    override func setUpWithError() throws {
        directory = try TemporaryDirectory("fi-seeds")
    }

    override func tearDown() {
        directory?.remove()
        directory = nil
    }

    // MARK: Writing, reading, replaying

    func testSeedFileFromAFailingRawRunRoundTrips() throws {
        let result = RunFixtures.rawFailure
        XCTAssertFalse(result.passed)
        let written = SeedFile(result: result, toolVersion: ToolVersion.current)
        XCTAssertEqual(written.format, "kvoguard-seed")
        XCTAssertEqual(written.version, 2)
        XCTAssertEqual(written.target, "raw")
        XCTAssertEqual(written.runner, "chaos")
        XCTAssertNil(written.strategy)
        XCTAssertNil(written.depth)
        XCTAssertNil(written.stepLimit)
        XCTAssertNil(written.schedule)
        XCTAssertEqual(written.seed, "5")
        XCTAssertEqual(written.scenario, result.scenario.configuration)
        XCTAssertEqual(written.failure.signature, result.verdict.signature)
        XCTAssertGreaterThan(written.failure.runtimeMisuses["notRegistered"] ?? 0, 0)
        XCTAssertFalse(written.failure.examples.isEmpty)
        XCTAssertEqual(written.operations?.count, result.scenario.configuration.workers)

        let path = try SeedFileStore.write(written, into: directory.path)
        XCTAssertEqual((path as NSString).lastPathComponent, "seed-raw-5.json")
        let read = try SeedFileStore.read(path)
        XCTAssertEqual(read, written)
        XCTAssertEqual(try read.makeScenario(), result.scenario)

        // A second write never overwrites the first.
        let second = try SeedFileStore.write(written, into: directory.path)
        XCTAssertEqual((second as NSString).lastPathComponent, "seed-raw-5-2.json")
        XCTAssertEqual(try directory.contents(), ["seed-raw-5-2.json", "seed-raw-5.json"])
    }

    /// A directory that cannot be made is named with the system's reason, not Foundation's "could not be completed".
    func testASeedFileDirectoryThatCannotBeMadeIsNamedWithTheReason() throws {
        let written = SeedFile(result: RunFixtures.rawFailure, toolVersion: ToolVersion.current)
        let blocker = directory.file("a-file")
        XCTAssertTrue(FileManager.default.createFile(atPath: blocker, contents: Data("x".utf8)))
        XCTAssertThrowsError(try SeedFileStore.write(written, into: blocker + "/seeds/deeper")) { error in
            XCTAssertEqual("\(error)", "cannot write \(blocker): Not a directory")
            XCTAssertEqual(error.localizedDescription, "cannot write \(blocker): Not a directory")
        }
        let nested = directory.file("made/on/the/way")
        XCTAssertTrue(try SeedFileStore.write(written, into: nested).hasPrefix(nested + "/seed-raw-"))
        // A one-character relative name (on which Foundation's `deletingLastPathComponent` traps).
        let previous = FileManager.default.currentDirectoryPath
        XCTAssertTrue(FileManager.default.changeCurrentDirectoryPath(directory.path))
        defer { _ = FileManager.default.changeCurrentDirectoryPath(previous) }
        XCTAssertEqual(try SeedFileStore.write(written, into: "q"), "q/seed-raw-5.json")
    }

    func testSeedFileIsReadableJSONWithTheOperationTexts() throws {
        let data = try RunFixtures.rawSeedFileData()
        let object = try XCTUnwrap(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        XCTAssertEqual(object["format"] as? String, "kvoguard-seed")
        XCTAssertEqual(object["version"] as? Int, 2)
        for field in ["strategy", "depth", "expectedSteps", "stepLimit", "schedule"] {
            XCTAssertNil(object[field], "a chaos file has no \(field)")
        }
        XCTAssertEqual(object["seed"] as? String, "5")
        let operations = try XCTUnwrap(object["operations"] as? [[String]])
        XCTAssertEqual(operations.first?.first, RunFixtures.scenario.operations[0][0].description)
    }

    func testReplayerReproducesTheRawFailure() throws {
        let path = try SeedFileStore.write(SeedFile(result: RunFixtures.rawFailure, toolVersion: ToolVersion.current), into: directory.path)
        let replayer = try Replayer(file: SeedFileStore.read(path))
        XCTAssertEqual(replayer.target.name, "raw")
        let outcome = try replayer.replay(runs: 2)
        XCTAssertEqual(outcome.runs, 2)
        XCTAssertGreaterThan(outcome.violatedRuns, 0)
        XCTAssertTrue(outcome.violated)
        // Reproduced means the recorded failure came back: a run with the file's own signature.
        XCTAssertEqual(outcome.reproduced, outcome.sameSignatureRuns > 0)
        XCTAssertEqual(outcome.signatures.count, 2)
        XCTAssertTrue(outcome.signatures.allSatisfy { $0.contains("runtime-misuse(") }, "\(outcome.signatures)")
        XCTAssertGreaterThan(outcome.lastViolation?.runtimeMisuses[.notRegistered] ?? 0, 0)
        XCTAssertLessThanOrEqual(outcome.sameSignatureRuns, outcome.violatedRuns)
    }

    func testReplayOfAGuardSeedFilePasses() throws {
        let result = RunFixtures.guardPass
        XCTAssertTrue(result.passed)
        let path = try SeedFileStore.write(SeedFile(result: result, toolVersion: ToolVersion.current), into: directory.path)
        let file = try SeedFileStore.read(path)
        XCTAssertEqual(file.target, "guard")
        XCTAssertEqual(file.failure.signature, "")
        let outcome = try Replayer(file: file).replay(runs: 2)
        XCTAssertEqual(outcome.runs, 2)
        XCTAssertEqual(outcome.violatedRuns, 0, "\(outcome.signatures)")
        XCTAssertFalse(outcome.reproduced)
        XCTAssertEqual(outcome.signatures, ["", ""])
        XCTAssertNil(outcome.lastViolation)
    }

    func testReplayingTheRawFileAgainstTheGuardPasses() throws {
        let path = try SeedFileStore.write(SeedFile(result: RunFixtures.rawFailure, toolVersion: ToolVersion.current), into: directory.path)
        let replayer = try Replayer(file: SeedFileStore.read(path), target: GuardTarget(diagnostics: CountingSink(keepsEvents: false)))
        let outcome = try replayer.replay(runs: 1)
        XCTAssertEqual(outcome.violatedRuns, 0, "\(outcome.signatures)")
    }

    // MARK: Every bad file gets its own error

    private func scenarioField(_ name: String, _ value: Any?) -> (inout [String: Any]) -> Void {
        { RunFixtures.setScenarioField(name, to: value, in: &$0) }
    }

    func testMissingFile() {
        let path = directory.file("absent.json")
        XCTAssertEqual(readError(path), .unreadable(path: path, reason: "no such file"))
        XCTAssertEqual(
            readError(directory.path), .unreadable(path: directory.path, reason: "it is a directory, not a seed file"))
    }

    func testEmptyFile() throws {
        let path = try directory.write("", to: "empty.json")
        XCTAssertEqual(readError(path), .empty(path: path))
        let blank = try directory.write("  \n\t\n", to: "blank.json")
        XCTAssertEqual(readError(blank), .empty(path: blank))
    }

    func testTruncatedFile() throws {
        let data = try RunFixtures.rawSeedFileData()
        let path = try directory.write(data.prefix(data.count / 2), to: "truncated.json")
        XCTAssertEqual(readError(path), .truncated(path: path))
    }

    func testNotJSON() throws {
        let path = try directory.write("this is not a seed file\n", to: "prose.json")
        guard case .notJSON(let errorPath, _) = readError(path) else { return XCTFail("expected .notJSON") }
        XCTAssertEqual(errorPath, path)
    }

    func testJSONThatIsNotAnObject() throws {
        let path = try directory.write("[1, 2, 3]\n", to: "array.json")
        XCTAssertEqual(readError(path), .notAnObject(path: path, found: "a list"))
        // Valid JSON that is not an object is not "not valid JSON".
        let null = try directory.write("null\n", to: "null.json")
        XCTAssertEqual(readError(null), .notAnObject(path: null, found: "null"))
        XCTAssertEqual(readError(null)?.description, "\(null) is not a seed file: expected a JSON object, found null")
        let string = try directory.write("\"str\"\n", to: "string.json")
        XCTAssertEqual(readError(string), .notAnObject(path: string, found: "a string (\"str\")"))
        let number = try directory.write("3.5\n", to: "number.json")
        XCTAssertEqual(readError(number), .notAnObject(path: number, found: "a number (3.5)"))
    }

    func testJSONNestedTooDeeplyIsSaidSo() throws {
        for (name, text) in [
            ("deep.json", String(repeating: "[", count: 100_000) + String(repeating: "]", count: 100_000)),
            ("deep-object.json", String(repeating: "{\"a\":", count: 1_000) + "1" + String(repeating: "}", count: 1_000)),
        ] {
            let path = try directory.write(text, to: name)
            XCTAssertEqual(readError(path), .nestedTooDeeply(path: path, limit: SeedFileStore.maximumNesting))
            XCTAssertTrue(readError(path)?.description.contains("nested too deeply") ?? false)
        }
    }

    /// Every kind of decoding error names the field by its path and says what it must be.
    func testDecodingErrorsNameTheFieldAndWhatItMustBe() throws {
        let cases: [((inout [String: Any]) -> Void, String)] = [
            (scenarioField("controllers", 3.5), "the field \"scenario.controllers\" must be a whole number, not 3.5"),
            (scenarioField("workers", 1e20), "the field \"scenario.workers\" must be a whole number from"),
            (scenarioField("workers", "many"), "the field \"scenario.workers\" must be a whole number, not a string (\"many\")"),
            (scenarioField("workers", NSNull()), "the field \"scenario.workers\" is null; it must be a whole number"),
            (scenarioField("workers", [1]), "the field \"scenario.workers\" must be a whole number, not a list"),
            ({ $0["scenario"] = [1, 2] }, "the field \"scenario\" must be an object, not a list"),
            ({ $0["seed"] = true }, "the field \"seed\" must be a string, not true"),
            ({ $0["operations"] = [[7]] }, "the field \"operations[0][0]\" must be a string, not a number (7)"),
        ]
        for (edit, phrase) in cases {
            let (error, path) = try readEdited(edit)
            assertMalformed(error, path: path, mentioning: phrase)
            XCTAssertFalse(error?.description.contains("not valid JSON") ?? true, "\(String(describing: error))")
        }
    }

    /// `JSONDecoder` reports a number its whole-number field cannot hold without a path; the field is still named,
    /// wherever it is (beside fields that hold fractions, in a dictionary of counts) and however far out of range.
    func testANumberNoWholeNumberFieldHoldsIsNamedWhereverItIs() throws {
        func faults(_ name: String, _ value: Any) -> (inout [String: Any]) -> Void {
            { object in
                var scenario = object["scenario"] as? [String: Any] ?? [:]
                var faults = scenario["faults"] as? [String: Any] ?? [:]
                faults[name] = value
                scenario["faults"] = faults
                object["scenario"] = scenario
            }
        }
        let cases: [((inout [String: Any]) -> Void, String)] = [
            (faults("maxSpinIterations", 0.5), "the field \"scenario.faults.maxSpinIterations\" must be a whole number, not 0.5"),
            ({ $0["failure"] = ["signature": "s", "violationCounts": ["x": 2.5], "runtimeMisuses": [:], "examples": []] },
             "the field \"failure.violationCounts.x\" must be a whole number, not 2.5"),
            (scenarioField("workers", NSDecimalNumber(string: "-9223372036854775809")),
             "the field \"scenario.workers\" must be a whole number from \(Int.min) to \(Int.max), not -9223372036854775809"),
            (scenarioField("objects", NSDecimalNumber(string: "100000000000000000000")),
             "the field \"scenario.objects\" must be a whole number from \(Int.min) to \(Int.max), not 100000000000000000000"),
        ]
        for (edit, phrase) in cases {
            let (error, path) = try readEdited(edit)
            assertMalformed(error, path: path, mentioning: phrase)
        }
        // A fraction where a fraction belongs is no mistake: the file reads.
        let probability = try directory.write(RunFixtures.editedRawSeedFile(faults("yieldProbability", 0.25)), to: "p.json")
        XCTAssertEqual(try SeedFileStore.read(probability).scenario.faults.yieldProbability, 0.25)
    }

    func testWrongFormat() throws {
        let (error, path) = try readEdited { $0["format"] = "someone-elses-seed" }
        XCTAssertEqual(error, .wrongFormat(path: path, found: "someone-elses-seed"))
        let (missing, missingPath) = try readEdited { $0["format"] = nil }
        // A missing format is said as such (never "format nothing"), with whatever else is missing.
        guard case .malformed(let errorPath, let reason) = missing else { return XCTFail("expected .malformed, got \(String(describing: missing))") }
        XCTAssertEqual(errorPath, missingPath)
        XCTAssertTrue(reason.contains("the field \"format\" is missing"), reason)
    }

    func testWrongVersion() throws {
        let (error, path) = try readEdited { $0["version"] = 3 }
        XCTAssertEqual(error, .unsupportedVersion(path: path, found: 3, supported: 2))
        XCTAssertTrue(error?.description.contains("reads versions 1 to 2") ?? false, "\(String(describing: error))")
        let (zero, zeroPath) = try readEdited { $0["version"] = 0 }
        XCTAssertEqual(zero, .unsupportedVersion(path: zeroPath, found: 0, supported: 2))
    }

    /// A newer version may have other fields: the version is checked before anything else is decoded.
    func testVersionIsCheckedBeforeOtherFields() throws {
        let (error, path) = try readEdited { object in
            object["version"] = 3
            object["scenario"] = nil
            object["seed"] = 12
            object["target"] = "planted-mutant-7"
            object["runner"] = "quantum"
        }
        XCTAssertEqual(error, .unsupportedVersion(path: path, found: 3, supported: 2))
    }

    func testMissingField() throws {
        let (error, path) = try readEdited(scenarioField("workers", nil))
        assertMalformed(error, path: path, mentioning: "\"scenario.workers\" is missing")
    }

    func testFieldWithTheWrongType() throws {
        let (error, path) = try readEdited(scenarioField("workers", "many"))
        assertMalformed(error, path: path, mentioning: "\"scenario.workers\" must be a whole number, not a string")
        let (seedError, seedPath) = try readEdited { $0["seed"] = 5 }
        assertMalformed(seedError, path: seedPath, mentioning: "\"seed\" must be a string, not a number (5)")
    }

    func testUnknownTarget() throws {
        let (error, _) = try readEdited { $0["target"] = "planted-mutant-7" }
        XCTAssertEqual(error, .unknownTarget("planted-mutant-7"))
        XCTAssertTrue(error?.description.contains("guard, raw") ?? false)
    }

    func testUnknownRunner() throws {
        let (error, _) = try readEdited { $0["runner"] = "quantum" }
        XCTAssertEqual(error, .unknownRunner("quantum"))
        XCTAssertTrue(error?.description.contains("knows \"chaos\" and \"controlled\"") ?? false)
    }

    func testSeedThatIsNotANumber() throws {
        let (error, _) = try readEdited { $0["seed"] = "twelve" }
        assertNonsensical(error, mentioning: "the seed \"twelve\" is not a whole number")
        let (negative, _) = try readEdited { $0["seed"] = "-1" }
        assertNonsensical(negative, mentioning: "the seed \"-1\"")
        let (tooLarge, _) = try readEdited { $0["seed"] = "18446744073709551616" }
        assertNonsensical(tooLarge, mentioning: "is not a whole number")
    }

    func testOperationTextThatDoesNotParse() throws {
        let (error, _) = try readEdited { object in
            RunFixtures.editOperations(in: &object) { $0[1][2] = "mutate o1 sum" }
        }
        assertNonsensical(error, mentioning: "worker 1 operation 2 \"mutate o1 sum\" is not an operation")
    }

    func testOperationNamingASlotBeyondTheConfiguration() throws {
        let (error, _) = try readEdited { object in
            // The configuration has 6 objects: o0 to o5.
            RunFixtures.editOperations(in: &object) { $0[0][0] = "release-object o6" }
        }
        assertNonsensical(error, mentioning: "worker 0 operation 0 (release-object o6) names a slot beyond")
    }

    /// Text read from a seed file is printed: a control character anywhere (a line break that would forge a line of
    /// output, an escape sequence that would drive the terminal) is refused, naming the field, never echoing it.
    func testAControlCharacterInAnyFieldIsRefusedWithoutBeingEchoed() throws {
        let edits: [(String, (inout [String: Any]) -> Void)] = [
            ("seed", { $0["seed"] = "1\r\nguard-stress: replay PASSED, exact" }),
            ("target", { $0["target"] = "\u{1B}[2Jguard" }),
            ("failure.signature", { object in
                var failure = object["failure"] as? [String: Any] ?? [:]
                failure["signature"] = "\u{1B}[32mnone\nRESULT: PASS"
                object["failure"] = failure
            }),
            ("operations[0][1]", { RunFixtures.editOperations(in: &$0) { $0[0][1] = "observe\u{2028}" } }),
            ("x<U+0007>y", { $0["x\u{7}y"] = 1 }),
        ]
        for (field, edit) in edits {
            let (error, path) = try readEdited(edit)
            assertMalformed(error, path: path, mentioning: "the field \"\(field)\" holds the control character U+")
            let text = error.map { "\($0)" } ?? ""
            XCTAssertFalse(text.unicodeScalars.contains(where: ControlCharacterField.isControl), "\(field): \(text.debugDescription)")
        }
    }

    func testWorkerWithMoreOperationsThanTheConfigurationAllows() throws {
        let (error, _) = try readEdited { object in
            RunFixtures.editOperations(in: &object) { $0[3] += $0[3] }
        }
        XCTAssertNotNil(error, "a worker listing more operations than operationsPerWorker must be refused")
        assertNonsensical(error, mentioning: "worker 3 lists")
        assertNonsensical(error, mentioning: "operations but the configuration's operationsPerWorker is")
    }

    func testWorkerCountThatDoesNotMatchTheOperationLists() throws {
        let (error, _) = try readEdited { object in
            RunFixtures.editOperations(in: &object) { $0.removeLast() }
        }
        assertNonsensical(error, mentioning: "lists 11 workers but its configuration has 12")
    }

    func testConfigurationProblems() throws {
        let (error, _) = try readEdited(scenarioField("workers", 0))
        assertNonsensical(error, mentioning: "workers must be between 1 and 4096 (is 0)")
        let (probability, _) = try readEdited(scenarioField("optionProbability", 2))
        assertNonsensical(probability, mentioning: "optionProbability must be between 0 and 1")
    }

    /// Numbers near `Int.max` are refused with a reason, never by trapping on an overflowing sum or product.
    func testNumbersThatWouldOverflowAreRefused() throws {
        let (workers, _) = try readEdited { object in
            RunFixtures.setScenarioField("workers", to: 4_611_686_018_427_387_904, in: &object)
            RunFixtures.setScenarioField("operationsPerWorker", to: 4, in: &object)
        }
        assertNonsensical(workers, mentioning: "workers × operationsPerWorker must be at most 50000000 (is beyond a 64-bit integer)")
        for (group, name) in [("mix", "observe"), ("actions", "none"), ("actions", "adopt")] {
            let (error, path) = try readEdited { object in
                var scenario = object["scenario"] as? [String: Any] ?? [:]
                var weights = scenario[group] as? [String: Any] ?? [:]
                weights[name] = Int.max
                scenario[group] = weights
                object["scenario"] = scenario
            }
            assertMalformed(error, path: path, mentioning: "\"scenario.\(group).\(name)\" is invalid: a weight must be from 0 to 1000000")
        }
        var configuration = ScenarioConfiguration()
        configuration.mix[.observe] = Int.max
        configuration.actions.none = Int.max
        XCTAssertEqual(configuration.problems, [
            "the operation mix needs weights from 0 to 1000000 with a positive total",
            "the handler action mix needs weights from 0 to 1000000 with a positive total",
        ])
        try assertControlledRejected(
            { RunFixtures.setScheduleField("workers", to: "0 0*\(Int.max)", in: &$0) },
            mentioning: "the schedule is longer than 100000000 steps")
    }

    func testEveryErrorReadsAsOneLine() {
        let errors: [SeedFileError] = [
            .unreadable(path: "/x", reason: "no such file"), .empty(path: "/x"), .truncated(path: "/x"),
            .notJSON(path: "/x", reason: "r"), .wrongFormat(path: "/x", found: "f"),
            .unsupportedVersion(path: "/x", found: 3, supported: 2), .malformed(path: "/x", reason: "r"),
            .nonsensical("r"), .unknownTarget("t"), .unknownRunner("r"), .unknownStrategy("s"),
        ]
        XCTAssertEqual(Set(errors.map(\.description)).count, errors.count)
        for error in errors {
            XCTAssertFalse(error.description.contains("\n"), error.description)
            XCTAssertFalse(error.description.isEmpty)
        }
    }
}
