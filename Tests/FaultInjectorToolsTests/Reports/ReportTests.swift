@testable import FaultInjector
import FaultInjectorTestSupport
@testable import FaultInjectorTools
import Foundation
import GuardCore
import XCTest

#if canImport(FoundationXML)
import FoundationXML
#endif

/// The machine-readable reports: JUnit XML that any XML parser reads back exactly, whatever the messages hold, and
/// the versioned JSON summary.
final class ReportTests: XCTestCase {
    private var directory: TemporaryDirectory!

    override func setUpWithError() throws {
        directory = try TemporaryDirectory("fi-reports")
    }

    override func tearDown() {
        directory?.remove()
        directory = nil
    }

    /// Text that needs every kind of escaping: markup, quotes, whitespace an attribute would normalize away, control
    /// characters XML 1.0 cannot hold, and characters beyond ASCII.
    private let nasty = "a < b && c > \"d\" 'e'\n\ttab\r\u{1B}[31mred\u{1B}[0m \u{0} ünïcødé 🚀 ]]> <![CDATA[x]]>"

    /// What XML keeps of `nasty`: the characters it cannot hold become U+FFFD.
    private var nastyAsXML: String {
        nasty.replacingOccurrences(of: "\u{1B}", with: "\u{FFFD}").replacingOccurrences(of: "\u{0}", with: "\u{FFFD}")
    }

    func testEscapedTextAndAttributesParseBackExactly() throws {
        let xml = "<a x=\(XMLText.attribute(nasty))>\(XMLText.content(nasty))</a>"
        let root = try XCTUnwrap(try XMLDocument(xmlString: xml, options: []).rootElement())
        XCTAssertEqual(root.attribute(forName: "x")?.stringValue, nastyAsXML)
        XCTAssertEqual(root.stringValue, nastyAsXML)
        XCTAssertEqual(XMLText.content("plain"), "plain")
        XCTAssertEqual(XMLText.attribute("say \"hi\""), "\"say &quot;hi&quot;\"")
    }

    private func summary(target: String, budget: Int) throws -> CampaignSummary {
        var settings = Campaign.Settings()
        settings.seed = 3
        settings.target = target
        settings.scenario.workers = 4
        settings.scenario.operationsPerWorker = 60
        settings.operationBudget = budget
        settings.writesSeedFileBeforeEachRound = false
        settings.maximumSeedFiles = 0
        settings.outputDirectory = directory.path
        return try Campaign(settings: settings).run()
    }

    func testJUnitHasOneTestCasePerRoundAndAFailurePerFailingRound() throws {
        var summary = try summary(target: "raw", budget: 960)
        XCTAssertEqual(summary.rounds, 4)
        XCTAssertFalse(summary.failures.isEmpty)
        // A message full of markup must not break the document.
        summary.failures[0].messages.append(nasty)
        let xml = JUnitReport(campaign: summary, startedAt: Date()).xml
        let root = try XCTUnwrap(try XMLDocument(xmlString: xml, options: []).rootElement())
        XCTAssertEqual(root.name, "testsuites")
        XCTAssertEqual(root.attribute(forName: "tests")?.stringValue, "4")
        XCTAssertEqual(root.attribute(forName: "failures")?.stringValue, String(summary.failures.count))
        let suite = try XCTUnwrap(root.elements(forName: "testsuite").first)
        XCTAssertEqual(suite.attribute(forName: "errors")?.stringValue, "0")
        let properties = suite.elements(forName: "properties").first?.elements(forName: "property") ?? []
        XCTAssertTrue(properties.contains { $0.attribute(forName: "name")?.stringValue == "seed" && $0.attribute(forName: "value")?.stringValue == "3" })
        let cases = suite.elements(forName: "testcase")
        XCTAssertEqual(cases.count, 4)
        XCTAssertEqual(cases.map { $0.attribute(forName: "classname")?.stringValue }, Array(repeating: "guard-stress.run.raw.chaos", count: 4))
        for (testCase, record) in zip(cases, summary.roundRecords) {
            XCTAssertEqual(testCase.attribute(forName: "name")?.stringValue, "round \(record.round) (seed \(record.seed))")
            let failure = testCase.elements(forName: "failure").first
            XCTAssertEqual(failure == nil, record.passed)
            if let failure {
                XCTAssertEqual(failure.attribute(forName: "message")?.stringValue, record.signature)
                let text = try XCTUnwrap(failure.stringValue)
                if let seedFile = summary.failures.first(where: { $0.round == record.round })?.seedFile {
                    XCTAssertTrue(text.contains("replay: guard-stress replay \(seedFile)"), text)
                } else {
                    XCTAssertTrue(text.contains("no seed file"), "a repeat past --max-seed-files 0: \(text)")
                }
            }
        }
        let first = try XCTUnwrap(cases[summary.failures[0].round].elements(forName: "failure").first?.stringValue)
        XCTAssertTrue(first.contains(nastyAsXML), first)
    }

    func testAHarnessErrorIsAJUnitError() throws {
        var summary = try summary(target: "guard", budget: 240)
        summary.harnessError = "no <child> could start"
        let root = try XCTUnwrap(try XMLDocument(xmlString: JUnitReport(campaign: summary, startedAt: Date()).xml, options: []).rootElement())
        XCTAssertEqual(root.attribute(forName: "errors")?.stringValue, "1")
        let error = root.elements(forName: "testsuite").first?.elements(forName: "testcase").last?.elements(forName: "error").first
        XCTAssertEqual(error?.attribute(forName: "message")?.stringValue, "no <child> could start")
    }

    func testTheJSONReportFollowsItsSchema() throws {
        let summary = try summary(target: "raw", budget: 480)
        let data = try StressReport(campaign: summary, isolation: .inProcess, exitCode: 1).encoded()
        let object = try XCTUnwrap(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        XCTAssertEqual(
            Set(object.keys),
            ["format", "version", "toolVersion", "createdAt", "command", "result", "exitCode", "target", "runner", "isolation", "totals", "violations", "run"])
        XCTAssertEqual(object["format"] as? String, StressReport.formatName)
        XCTAssertEqual(object["version"] as? Int, StressReport.currentVersion)
        XCTAssertEqual(object["result"] as? String, "fail")
        XCTAssertEqual((object["isolation"] as? [String: Any])?["mode"] as? String, "in-process")
        let totals = try XCTUnwrap(object["totals"] as? [String: Any])
        XCTAssertEqual(totals["rounds"] as? Int, 2)
        XCTAssertEqual(totals["operations"] as? Int, summary.operations)
        let violations = try XCTUnwrap(object["violations"] as? [String: Any])
        XCTAssertEqual(violations["total"] as? Int, summary.verdict.totalViolations)
        XCTAssertEqual(violations["byKind"] as? [String: Int], Dictionary(uniqueKeysWithValues: summary.verdict.violationCounts.map { ($0.key.rawValue, $0.value) }))
        XCTAssertNotNil((violations["runtimeMisuses"] as? [String: Int])?["notRegistered"])
        let run = try XCTUnwrap(object["run"] as? [String: Any])
        XCTAssertEqual(run["seed"] as? String, "3")
        let failing = try XCTUnwrap(run["failingRounds"] as? [[String: Any]])
        XCTAssertEqual(failing.count, summary.failures.count)
        XCTAssertEqual(failing.first?["signature"] as? String, summary.failures.first?.signature)
        XCTAssertEqual(failing.first?["seedFile"] as? String, summary.failures.first?.seedFile, "a new signature is always written")
        XCTAssertEqual(run["seedFiles"] as? [String], summary.seedFiles)
        // The report decodes back into the same value.
        let decoded = try JSONDecoder().decode(StressReport.self, from: data)
        XCTAssertEqual(decoded.run, StressReport(campaign: summary, isolation: .inProcess, exitCode: 1).run)
    }
}
