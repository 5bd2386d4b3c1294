@testable import FaultInjector
import FaultInjectorTestSupport
import Foundation
import GuardCore
import XCTest

/// The scenario documentation is true: every code block of the FaultInjector articles marked as a scenario parses
/// and runs against its target, and the reference names every operation, key, option, handler action and setting
/// the grammar has.
final class ScenarioDocumentationTests: XCTestCase {
    /// `Sources/FaultInjector/FaultInjector.docc`.
    private var articles: URL { PackageRoot.url.appendingPathComponent("Sources/FaultInjector/FaultInjector.docc") }

    private func article(_ name: String) throws -> String {
        try String(contentsOf: articles.appendingPathComponent(name), encoding: .utf8)
    }

    /// The code blocks fenced as ```` ```scenario ```` in `text`.
    private func scenarioBlocks(_ text: String) -> [String] {
        var blocks: [String] = []
        var current: [Substring]?
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            if current == nil, line.trimmingCharacters(in: .whitespaces) == "```scenario" {
                current = []
            } else if current != nil, line.trimmingCharacters(in: .whitespaces) == "```" {
                blocks.append(current!.joined(separator: "\n"))
                current = nil
            } else {
                current?.append(line)
            }
        }
        return blocks
    }

    func testEveryScenarioBlockOfTheArticlesParsesAndRuns() throws {
        let names = try FileManager.default.contentsOfDirectory(atPath: articles.path).filter { $0.hasSuffix(".md") }
        var checked: [String: Int] = [:]
        for name in names {
            for (index, block) in scenarioBlocks(try article(name)).enumerated() {
                let label = "\(name), scenario block \(index + 1)"
                let loaded: LoadedScenario
                do {
                    loaded = try ScenarioFile.parse(block, path: label)
                } catch {
                    XCTFail(error.detailedDescription)
                    continue
                }
                let target = try XCTUnwrap(TargetCatalog.make(loaded.target, diagnostics: CountingSink(keepsEvents: false)))
                let result = ControlledRunner().runAndEvaluate(loaded.scenario, against: target)
                XCTAssertFalse(result.verdict.abandoned, "\(label) ran to its end")
                XCTAssertGreaterThan(result.history.operations.count, 0, label)
                checked[name, default: 0] += 1
            }
        }
        XCTAssertGreaterThanOrEqual(checked["ScenarioReference.md", default: 0], 4, "\(checked)")
        XCTAssertGreaterThanOrEqual(checked["CrashReportToRace.md", default: 0], 2, "\(checked)")
    }

    /// The walk-through's two reports behave as it says: the guard passes them, the raw runtime does not.
    func testTheWalkThroughsScenariosPassTheGuardAndFailTheRawRuntime() throws {
        let blocks = scenarioBlocks(try article("CrashReportToRace.md"))
        XCTAssertEqual(blocks.count, 2)
        for block in blocks {
            let loaded = try ScenarioFile.parse(block)
            XCTAssertEqual(loaded.target, "guard")
            for seed: UInt64 in 1...10 {
                let run = Scenario(configuration: loaded.scenario.configuration, seed: seed, operations: loaded.scenario.operations)
                XCTAssertTrue(ControlledRunner().runAndEvaluate(run, against: GuardTarget(diagnostics: CountingSink(keepsEvents: false))).passed)
                XCTAssertFalse(ControlledRunner().runAndEvaluate(run, against: RawRuntimeTarget()).passed)
            }
        }
    }

    /// Nothing the grammar accepts is missing from the reference.
    func testTheReferenceNamesEveryOperationKeyOptionActionAndSetting() throws {
        let reference = try article("ScenarioReference.md")
        for verb in OperationParser.verbs { XCTAssertTrue(reference.contains("`\(verb)"), "operation \(verb)") }
        for key in StressKey.allCases { XCTAssertTrue(reference.contains("`\(key.name)`"), "key \(key.name)") }
        for typed in StressTypedKey.allCases { XCTAssertTrue(reference.contains("`\(typed.text)`"), "key path \(typed.text)") }
        for option in StressOptions.optionNames { XCTAssertTrue(reference.contains("`\(option)`"), "option \(option)") }
        for action in ["none", "unobserve-self", "unobserve-all", "release-controller", "mutate oN", "observe oN", "adopt oN"] {
            XCTAssertTrue(reference.contains("`\(action)"), "handler action \(action)")
        }
        for setting in ScenarioFile.settings { XCTAssertTrue(reference.contains("`\(setting.keyword) "), "setting \(setting.keyword)") }
        for call in ScenarioHeader.DeinitCall.allCases { XCTAssertTrue(reference.contains("`\(call.rawValue)`"), "deinit \(call)") }
    }
}
