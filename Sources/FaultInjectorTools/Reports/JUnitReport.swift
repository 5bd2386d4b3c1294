import FaultInjector
import Foundation

/// A campaign or a replay as JUnit XML, so CI systems show failures natively: `guard-stress run --junit FILE`
/// (one test case per round) and `guard-stress replay FILE --junit OUT` (one test case per run). A round that
/// violated the oracle, crashed, trapped or hung is a `<failure>` whose message is its signature and whose text holds
/// its violations, its seed file and the command that replays it. Everything is escaped (``XMLText``).
public struct JUnitReport: Sendable {
    /// One `<testcase>`.
    public struct TestCase: Sendable {
        /// Its name (`round 3 (seed 1234)`).
        public var name: String
        /// Its class name (`guard-stress.run.guard.chaos`): CI systems group by it.
        public var className: String
        /// Seconds it took.
        public var seconds: Double
        /// Its failure, if it failed.
        public var failure: Failure?
        /// Its error (the harness could not run it), if any.
        public var error: Failure?
        /// Extra text for `<system-out>`.
        public var output: String?
    }

    /// A `<failure>` or `<error>`.
    public struct Failure: Sendable {
        /// The `message` attribute (the failure signature).
        public var message: String
        /// The `type` attribute (the first violation kind).
        public var type: String
        /// The element's text.
        public var text: String
    }

    /// One `<testsuite>`.
    public struct Suite: Sendable {
        /// Its name.
        public var name: String
        /// When it started (ISO 8601).
        public var timestamp: String
        /// Seconds in all.
        public var seconds: Double
        /// `<property>` name / value pairs.
        public var properties: [(name: String, value: String)]
        /// Its test cases.
        public var cases: [TestCase]
    }

    /// The suites (guard-stress writes one).
    public var suites: [Suite]

    /// A report of `suites`.
    public init(suites: [Suite]) {
        self.suites = suites
    }

    /// One test case per round of `summary`.
    public init(campaign summary: CampaignSummary, startedAt: Date) {
        let className = "guard-stress.run.\(summary.target).\(summary.runner.name)"
        let failures = Dictionary(summary.failures.map { ($0.round, $0) }, uniquingKeysWith: { first, _ in first })
        var cases = summary.roundRecords.map { record -> TestCase in
            var testCase = TestCase(
                name: "round \(record.round) (seed \(record.seed))", className: className, seconds: record.seconds)
            if let failed = failures[record.round] {
                var lines = failed.messages
                if let seedFile = failed.seedFile {
                    lines += ["seed file: \(seedFile)", "replay: guard-stress replay \(seedFile)"]
                } else {
                    lines.append(
                        "no seed file (" + (failed.seedFileProblem ?? "the campaign's --max-seed-files limit was reached") + ")")
                }
                if let log = failed.log { lines.append("process log: \(log)") }
                testCase.failure = Failure(
                    message: failed.signature, type: Self.firstKind(of: failed.signature),
                    text: lines.joined(separator: "\n"))
            }
            return testCase
        }
        if let harnessError = summary.harnessError {
            var testCase = TestCase(name: "rounds could be run", className: className, seconds: 0)
            testCase.error = Failure(message: harnessError, type: "harness", text: harnessError)
            cases.append(testCase)
        }
        if let interruption = summary.interruption {
            cases.append(Self.unfinishedCase(className: className, reason: interruption))
        }
        var properties: [(name: String, value: String)] = [
            ("target", summary.target), ("runner", summary.runner.name), ("seed", String(summary.seed)),
            ("operations", String(summary.operations)), ("toolVersion", ToolVersion.current),
        ]
        if let controlled = summary.runner.controlledSettings { properties.append(("strategy", "\(controlled.strategy)")) }
        suites = [
            Suite(
                name: "guard-stress run \(summary.target) \(summary.runner.name) seed \(summary.seed)",
                timestamp: ISO8601DateFormatter().string(from: startedAt), seconds: summary.seconds,
                properties: properties, cases: cases)
        ]
    }

    /// The report of a `command` against `target` that has not finished (written when it starts, or when a signal
    /// stops it): one test case in error, saying why, so no earlier report of a finished run is left looking green.
    public init(unfinished command: String, target: String, runner: RunnerChoice, reason: String, startedAt: Date) {
        let className = "guard-stress.\(command).\(target).\(runner.name)"
        suites = [
            Suite(
                name: "guard-stress \(command) \(target) \(runner.name)",
                timestamp: ISO8601DateFormatter().string(from: startedAt), seconds: 0,
                properties: [("target", target), ("runner", runner.name), ("toolVersion", ToolVersion.current)],
                cases: [Self.unfinishedCase(className: className, reason: reason)])
        ]
    }

    /// The test case in error of a command that did not finish.
    private static func unfinishedCase(className: String, reason: String) -> TestCase {
        var testCase = TestCase(name: "the run finished", className: className, seconds: 0)
        testCase.error = Failure(message: reason, type: "interrupted", text: reason)
        return testCase
    }

    /// One test case per run of a replay of `path`.
    public init(replay outcome: Replayer.Outcome, file: SeedFile, path: String, target: String, seconds: Double, startedAt: Date) {
        let className = "guard-stress.replay.\(target).\(file.runner)"
        let cases = outcome.verdicts.enumerated().map { index, verdict -> TestCase in
            var testCase = TestCase(name: "run \(index + 1) of \(path)", className: className, seconds: verdict.seconds)
            if !verdict.passed {
                let lines = verdict.violations.map { "\($0.kind.rawValue): \($0.message)" }
                    + ["seed file: \(path)", "recorded signature: \(file.failure.signature)"]
                testCase.failure = Failure(
                    message: verdict.signature, type: Self.firstKind(of: verdict.signature),
                    text: lines.joined(separator: "\n"))
            }
            if let mismatch = outcome.mismatches.first(where: { $0.hasPrefix("run \(index + 1):") }) {
                testCase.output = mismatch
            }
            return testCase
        }
        suites = [
            Suite(
                name: "guard-stress replay \(path)", timestamp: ISO8601DateFormatter().string(from: startedAt),
                seconds: seconds,
                properties: [
                    ("target", target), ("recordedTarget", file.target), ("runner", file.runner), ("seed", file.seed),
                    ("recordedSignature", file.failure.signature), ("toolVersion", ToolVersion.current),
                ],
                cases: cases)
        ]
    }

    /// The XML document.
    public var xml: String {
        let tests = suites.reduce(0) { $0 + $1.cases.count }
        let failures = suites.reduce(0) { $0 + $1.cases.filter { $0.failure != nil }.count }
        let errors = suites.reduce(0) { $0 + $1.cases.filter { $0.error != nil }.count }
        let seconds = suites.reduce(0) { $0 + $1.seconds }
        var out = #"<?xml version="1.0" encoding="UTF-8"?>"# + "\n"
        out += ReportKind.junitMarker + " tests=\"\(tests)\" failures=\"\(failures)\" errors=\"\(errors)\" "
            + "time=\"\(Self.time(seconds))\">\n"
        for suite in suites {
            let suiteFailures = suite.cases.filter { $0.failure != nil }.count
            let suiteErrors = suite.cases.filter { $0.error != nil }.count
            out += "  <testsuite name=\(XMLText.attribute(suite.name)) tests=\"\(suite.cases.count)\" "
                + "failures=\"\(suiteFailures)\" errors=\"\(suiteErrors)\" skipped=\"0\" "
                + "time=\"\(Self.time(suite.seconds))\" timestamp=\(XMLText.attribute(suite.timestamp))>\n"
            if !suite.properties.isEmpty {
                out += "    <properties>\n"
                for property in suite.properties {
                    out += "      <property name=\(XMLText.attribute(property.name)) value=\(XMLText.attribute(property.value))/>\n"
                }
                out += "    </properties>\n"
            }
            for testCase in suite.cases {
                out += "    <testcase name=\(XMLText.attribute(testCase.name)) classname=\(XMLText.attribute(testCase.className)) "
                    + "time=\"\(Self.time(testCase.seconds))\""
                guard testCase.failure != nil || testCase.error != nil || testCase.output != nil else {
                    out += "/>\n"
                    continue
                }
                out += ">\n"
                for (element, failure) in [("failure", testCase.failure), ("error", testCase.error)] {
                    guard let failure else { continue }
                    out += "      <\(element) message=\(XMLText.attribute(failure.message)) type=\(XMLText.attribute(failure.type))>"
                        + XMLText.content(failure.text) + "</\(element)>\n"
                }
                if let output = testCase.output {
                    out += "      <system-out>" + XMLText.content(output) + "</system-out>\n"
                }
                out += "    </testcase>\n"
            }
            out += "  </testsuite>\n"
        }
        out += "</testsuites>\n"
        return out
    }

    /// `crash` for `crash(SIGSEGV)+leak`: the first violation kind of a signature.
    static func firstKind(of signature: String) -> String {
        String(signature.prefix { $0 != "+" && $0 != "(" })
    }

    private static func time(_ seconds: Double) -> String {
        String(format: "%.3f", seconds.isFinite ? max(0, seconds) : 0)
    }
}
