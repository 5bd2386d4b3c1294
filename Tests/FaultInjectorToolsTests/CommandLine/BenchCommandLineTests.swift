import FaultInjectorTestSupport
import Foundation
import XCTest

/// `guard-stress bench`: its arguments, its figure list and filter, and the shape of its JSON. Never its timings:
/// numbers are the bench's business, not the tests'.
final class BenchCommandLineTests: XCTestCase {
    private var directory: TemporaryDirectory!

    override func setUpWithError() throws {
        directory = try TemporaryDirectory("fi-bench")
    }

    override func tearDown() {
        directory?.remove()
        directory = nil
    }

    private func run(_ arguments: [String], file: StaticString = #filePath, line: UInt = #line) throws -> GuardStressProcess.Outcome {
        try GuardStressProcess.run(["bench"] + arguments, in: directory, timeout: 120, file: file, line: line)
    }

    /// The figure names `bench --list` prints (the indented lines that start with a name).
    private func listedNames(_ outcome: GuardStressProcess.Outcome) -> [String] {
        outcome.stdout.split(separator: "\n").compactMap { line -> String? in
            guard line.hasPrefix("  "), !line.hasPrefix("   ") else { return nil }
            return line.split(separator: " ").first.map(String.init)
        }
    }

    /// One figure from every group, and the baselines its ratios are read against.
    private static let representativeFigures: [String: String?] = [
        "unobserved-set.observed-property": "unobserved-set.plain-setter",
        "notify.raw.1-observer": "notify.floor",
        "notify.guard.1-observer": "notify.raw.1-observer",
        "notify.guard.1000-observers": "notify.raw.1000-observers",
        "notify.guard.per-notification.1000-observers": "notify.guard.per-notification.100-observers",
        "registration.guard-pair.unobserved-object": "registration.raw-pair.unobserved-object",
        "registration.guard-pair.observed-object": "registration.raw-pair.observed-object",
        "registration.guard-unobserve.100000-elsewhere": "registration.guard-unobserve.10-elsewhere",
        "throughput.unobserved.2-queues": "throughput.unobserved.1-queue",
        "throughput.shared-object.64-queues": "throughput.shared-object.1-queue",
        "throughput.shared-object-plain-mutex.64-queues": "throughput.shared-object-plain-mutex.1-queue",
        "memory.guard.bytes-per-registration": "memory.raw.bytes-per-registration",
        "memory.guard.resident-growth": nil,
        "harness.chaos.ops-per-second": "harness.chaos.ops-per-second-workers-only",
        "explore.executions-per-second.2-jobs": "explore.executions-per-second.1-job",
    ]

    // MARK: Help and list

    func testHelpNamesTheReleaseCommandAndEveryOption() throws {
        for arguments in [["bench", "--help"], ["help", "bench"]] {
            let outcome = try GuardStressProcess.run(arguments, in: directory)
            XCTAssertEqual(outcome.status, 0, outcome.stderr)
            for phrase in ["swift run -c release guard-stress bench", "--quick", "--filter NAME", "--json FILE", "--list"] {
                XCTAssertTrue(outcome.stdout.contains(phrase), "help lacks \(phrase): \(outcome.stdout)")
            }
        }
        let overview = try GuardStressProcess.run(["--help"], in: directory)
        XCTAssertTrue(overview.stdout.contains("guard-stress bench"), overview.stdout)
    }

    func testListNamesEveryGroupsFiguresWithTheirBaselines() throws {
        let outcome = try run(["--list"])
        XCTAssertEqual(outcome.status, 0, outcome.stderr)
        XCTAssertEqual(outcome.stderr, "", "--list measures nothing")
        let names = listedNames(outcome)
        XCTAssertEqual(Set(names).count, names.count, "duplicate figure names: \(names)")
        for title in ["1. ", "2. ", "3. ", "4. ", "5. ", "6. ", "7. ", "8. ", "9. "] {
            XCTAssertTrue(outcome.stdout.split(separator: "\n").contains { $0.hasPrefix(title) }, "no group \(title)")
        }
        for (name, baseline) in Self.representativeFigures {
            XCTAssertTrue(names.contains(name), "\(name) is not listed")
            let row = outcome.stdout.split(separator: "\n").first { $0.hasPrefix("  \(name) ") }.map(String.init) ?? ""
            if let baseline {
                XCTAssertTrue(row.hasSuffix("(vs \(baseline))"), row)
                XCTAssertTrue(names.contains(baseline), "baseline \(baseline) is not listed")
            } else {
                XCTAssertFalse(row.contains("(vs "), row)
            }
        }
    }

    func testFilterSelectsBySubstringOrRegexAndKeepsBaselines() throws {
        let substring = try run(["--list", "--filter", "resident"])
        XCTAssertEqual(substring.status, 0, substring.stderr)
        XCTAssertEqual(listedNames(substring), ["memory.guard.resident-growth"])

        let regex = try run(["--list", "--filter", #"^throughput\.unobserved\.(2|64)-"#])
        XCTAssertEqual(regex.status, 0, regex.stderr)
        XCTAssertEqual(
            listedNames(regex),
            ["throughput.unobserved.1-queue", "throughput.unobserved.2-queues", "throughput.unobserved.64-queues"],
            "the two selected figures and the baseline they are compared with")

        // Not a valid regular expression: still a substring filter.
        let literal = try run(["--list", "--filter", "notify.guard.1-observer("])
        XCTAssertEqual(literal.status, 2, "nothing contains the literal text")
        let chain = try run(["--list", "--filter", "notify.guard.1-observer"])
        XCTAssertEqual(listedNames(chain), ["notify.floor", "notify.raw.1-observer", "notify.guard.1-observer"])
    }

    // MARK: Usage errors

    func testBadArgumentsExitTwoWithoutMeasuring() throws {
        let assertUsageError = { (outcome: GuardStressProcess.Outcome, phrase: String) in
            GuardStressProcess.assertUsageError(outcome, mentioning: phrase)
        }
        assertUsageError(try run(["--bogus"]), "unknown option '--bogus'")
        assertUsageError(try run(["--quick=yes"]), "unknown option '--quick=yes'")
        assertUsageError(try run(["--filter"]), "--filter needs a value")
        assertUsageError(try run(["--filter", ""]), "--filter needs a figure name")
        assertUsageError(try run(["--filter", "no-such-figure"]), "--filter 'no-such-figure' selects no figure")
        assertUsageError(try run(["--json"]), "--json needs a value")
        assertUsageError(try run(["--json", ""]), "--json needs a file name")
        assertUsageError(try run(["--json", directory.file("missing/dir/out.json")]), "--json cannot write")
        assertUsageError(try run(["fast"]), "bench takes no positional arguments (got 'fast')")
    }

    /// A filter that is not a valid regular expression and no figure name contains says so, instead of a bare "selects
    /// no figure"; one that is a substring of a name still selects by substring.
    func testAnInvalidRegularExpressionThatSelectsNothingSaysSo() throws {
        GuardStressProcess.assertUsageError(try run(["--filter", "(["]), mentioning: "'([' selects no figure")
        let invalid = try run(["--list", "--filter", "(["])
        XCTAssertTrue(invalid.stderr.contains("it is not a valid regular expression"), invalid.stderr)
        let valid = try run(["--list", "--filter", "zz.*qq"])
        XCTAssertFalse(valid.stderr.contains("not a valid regular expression"), valid.stderr)
        XCTAssertTrue(valid.stderr.contains("matches it as a regular expression"), valid.stderr)
        let substring = try run(["--list", "--filter", "notify.raw.1-observer"])
        XCTAssertEqual(substring.status, 0, substring.stderr)
        XCTAssertTrue(listedNames(substring).contains("notify.raw.1-observer"), substring.stdout)
    }

    // MARK: Measuring

    /// A quick run of two cheap figures: the table lists them, and the JSON is a list of figures with `name`,
    /// `value` and `unit`, plus `baseline` and `ratio` (value ÷ the baseline's value) for the one that has a baseline.
    func testQuickRunWritesTheTableAndTheJSONList() throws {
        // An earlier figure list at the path is replaced (re-running a CI step); any other file would be refused.
        let path = try directory.write(#"[{"name": "notify.raw.1-observer", "unit": "ns", "value": 1}]"# + "\n", to: "figures.json")
        let outcome = try run(["--quick", "--filter", #"^notify\.raw\.1-observer$"#, "--json", path])
        XCTAssertEqual(outcome.status, 0, outcome.stdout + outcome.stderr)
        XCTAssertTrue(outcome.stdout.contains("KVOGuard bench:"), outcome.stdout)
        XCTAssertTrue(outcome.stdout.contains("machine: "), outcome.stdout)
        XCTAssertTrue(outcome.stdout.contains("2. Notification"), outcome.stdout)
        let rows = outcome.stdout.split(separator: "\n").filter { $0.hasPrefix("  ") }
        XCTAssertEqual(rows.count, 2, outcome.stdout)
        XCTAssertTrue(rows.contains { $0.hasPrefix("  notify.floor ") && $0.contains(" ns") }, outcome.stdout)
        XCTAssertTrue(
            rows.contains { $0.hasPrefix("  notify.raw.1-observer ") && $0.contains("×") && $0.hasSuffix("notify.floor") },
            outcome.stdout)

        let json = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: path)))
        let figures = try XCTUnwrap(json as? [[String: Any]], "the JSON must be a list of objects")
        XCTAssertEqual(figures.compactMap { $0["name"] as? String }, ["notify.floor", "notify.raw.1-observer"])
        var values: [String: Double] = [:]
        for figure in figures {
            let name = try XCTUnwrap(figure["name"] as? String)
            let value = try XCTUnwrap(figure["value"] as? Double, "\(name): value must be a number")
            XCTAssertTrue(value.isFinite && value > 0, "\(name): \(value)")
            XCTAssertEqual(figure["unit"] as? String, "ns", name)
            values[name] = value
        }
        let floor = figures[0]
        XCTAssertEqual(Set(floor.keys), ["name", "value", "unit"], "no baseline, so no baseline or ratio key")
        let raw = figures[1]
        XCTAssertEqual(Set(raw.keys), ["name", "value", "unit", "baseline", "ratio"])
        XCTAssertEqual(raw["baseline"] as? String, "notify.floor")
        let ratio = try XCTUnwrap(raw["ratio"] as? Double)
        XCTAssertEqual(ratio, values["notify.raw.1-observer"]! / values["notify.floor"]!, accuracy: 1e-9 * ratio)
    }

    /// The exploration figures: executions per second with one job and with two (child processes), the second read
    /// against the first.
    func testQuickRunMeasuresExplorationWithOneAndTwoJobs() throws {
        let outcome = try run(["--quick", "--filter", "explore"])
        XCTAssertEqual(outcome.status, 0, outcome.stdout + outcome.stderr)
        XCTAssertTrue(outcome.stdout.contains("9. Exploration"), outcome.stdout)
        let rows = outcome.stdout.split(separator: "\n").filter { $0.hasPrefix("  explore.") }
        XCTAssertEqual(rows.count, 2, outcome.stdout)
        XCTAssertTrue(rows.contains { $0.hasPrefix("  explore.executions-per-second.1-job ") && $0.contains("executions/s") })
        XCTAssertTrue(
            rows.contains { $0.hasPrefix("  explore.executions-per-second.2-jobs ") && $0.hasSuffix("explore.executions-per-second.1-job") },
            outcome.stdout)
    }
}
