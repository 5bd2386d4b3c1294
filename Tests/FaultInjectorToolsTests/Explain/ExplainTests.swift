@testable import FaultInjector
import FaultInjectorTestSupport
@testable import FaultInjectorTools
import Foundation
import GuardCore
import XCTest

#if canImport(FoundationXML)
import FoundationXML
#endif

/// `explain`: a failing run told as a story, with each violation pinned to its step, as text and as a page.
final class ExplainTests: XCTestCase {
    private var directory: TemporaryDirectory!

    override func setUpWithError() throws {
        directory = try TemporaryDirectory("fi-explain")
    }

    override func tearDown() {
        directory?.remove()
        directory = nil
    }

    /// The guard, with every notification handed to the harness twice: each change is a duplicate delivery.
    private struct DoubleDelivery: SystemUnderTest {
        let name = "double-delivery"
        let promisesGuardSemantics = true

        func makeController(
            for observer: StressObserver, retainsObjects: Bool, diagnostics: any DiagnosticSink
        ) -> any StressController {
            Controller(inner: GuardTarget(diagnostics: CountingSink(keepsEvents: false)).makeController(for: observer, retainsObjects: retainsObjects, diagnostics: diagnostics))
        }

        final class Twice: DeliverySink, @unchecked Sendable {
            let inner: DeliverySink
            init(_ inner: DeliverySink) { self.inner = inner }
            func deliver(observer: StressObserver?, object: StressObject, change: KeyValueChange) {
                inner.deliver(observer: observer, object: object, change: change)
                inner.deliver(observer: observer, object: object, change: change)
            }
        }

        final class Controller: StressController, @unchecked Sendable {
            let inner: any StressController
            init(inner: any StressController) { self.inner = inner }
            func observe(_ object: StressObject, keyPath: String, options: KeyValueObservingOptions, sink: DeliverySink, call: StressCall) -> ObserveOutcome {
                inner.observe(object, keyPath: keyPath, options: options, sink: Twice(sink), call: call)
            }
            func unobserve(_ object: StressObject, keyPath: String, call: StressCall) -> UnobserveOutcome { inner.unobserve(object, keyPath: keyPath, call: call) }
            func unobserve(_ object: StressObject, call: StressCall) -> UnobserveOutcome { inner.unobserve(object, call: call) }
            func unobserveAll(call: StressCall) -> Int? { inner.unobserveAll(call: call) }
        }
    }

    /// Runs `texts` under the controlled runner against `target`, writes the seed file, and explains it.
    private func story(
        _ texts: [[String]], target: any SystemUnderTest, runner: RunnerChoice = .controlled(.init())
    ) throws -> (RunStory, RunResult) {
        var scenario = ControlledFixtures.scenario(texts)
        if runner == .chaos {
            var configuration = scenario.configuration
            configuration.faults = .none
            scenario = Scenario(configuration: configuration, seed: scenario.seed, operations: scenario.operations)
        }
        let result = runner.makeRunner().runAndEvaluate(scenario, against: target)
        let path = try SeedFileStore.write(SeedFile(result: result, toolVersion: ToolVersion.current), into: directory.path)
        let file = try SeedFileStore.read(path, targets: TargetCatalog.names + [target.name])
        return (try Explainer(file: file, fileName: "small.json", target: target).explain(), result)
    }

    // MARK: The trace

    func testTheTraceRecordsEachMisuseWhereItHappenedWithoutChangingTheSchedule() throws {
        let scenario = ControlledFixtures.scenario([["mutate o0 k0", "unobserve c0 o0 k0", "mutate o0 k1"]])
        let plain = ControlledRunner().runAndEvaluate(scenario, against: RawRuntimeTarget())
        let traced = ControlledRunner(settings: ControlledFixtures.settings(.pct(depth: 3), recordsTrace: true))
            .runAndEvaluate(scenario, against: RawRuntimeTarget())
        XCTAssertEqual(traced.recording.controlled?.schedule, plain.recording.controlled?.schedule, "reading the counters adds no step")
        XCTAssertEqual(traced.history.digest, plain.history.digest)
        let events = try XCTUnwrap(traced.recording.controlled?.trace?.events)
        let misuse = try XCTUnwrap(events.firstIndex { $0.kind == .misuse(kind: .notRegistered) })
        XCTAssertEqual(events.filter { if case .misuse = $0.kind { return true } else { return false } }.count, 1)
        guard case .ended = events[misuse + 1].kind else { return XCTFail("the misuse is recorded before its operation ends") }
        let unobserve = try XCTUnwrap(traced.history.operations.first { $0.index == 1 })
        XCTAssertEqual(events[misuse + 1].kind, .ended(operation: unobserve.id, outcome: .unknown))
    }

    // MARK: Text

    func testAMisuseIsPinnedToTheStepWhereItReachedTheRuntime() throws {
        let (story, _) = try story([["observe c0 o0 k0 [new]", "unobserve c0 o0 k1", "mutate o0 k0"]], target: RawRuntimeTarget())
        let text = StoryText(story: story).text
        XCTAssertTrue(text.contains("#1 observe c0 o0 k0 [new] → returned"), text)
        XCTAssertTrue(text.contains("#2 unobserve c0 o0 k1"), text)
        XCTAssertTrue(text.contains("» #1 hears #3 (new "), text)
        let misuseRow = try XCTUnwrap(text.split(separator: "\n").first { $0.contains("✗ misuse notRegistered") })
        XCTAssertTrue(misuseRow.contains("◄ ✗1 runtime-misuse"), String(misuseRow))
        // The observe is never removed: its object deallocates observed when the run releases everything.
        XCTAssertEqual(story.violations.count, 2)
        let violation = story.violations[0]
        XCTAssertEqual(story.lines[violation.line].kind, .misuse)
        XCTAssertEqual(story.lines[story.violations[1].line].kind, .end)
        XCTAssertTrue(story.violations[1].message.contains("deallocatedWhileObserved"), story.violations[1].message)
        XCTAssertTrue(text.contains("runtime misuse while releasing: ✗ deallocatedWhileObserved ×1   ◄ ✗2"), text)
        XCTAssertTrue(text.contains("✗1 runtime-misuse (at step \(story.lines[violation.line].step!), worker 0): 1 × notRegistered"), text)
        XCTAssertTrue(story.header.provenance.contains("an exact replay of the recorded schedule"), story.header.provenance)
        XCTAssertLessThan(text.split(separator: "\n").count, 25)
    }

    func testADeliveryViolationIsPinnedToTheNotificationItNamesAndUsesTheLabels() throws {
        let (story, result) = try story([["observe c0 o0 k0 [new]", "mutate o0 k0"]], target: DoubleDelivery())
        XCTAssertEqual(result.verdict.signature, "duplicate-delivery")
        let text = StoryText(story: story).text
        let hearing = text.split(separator: "\n").filter { $0.contains("» #1 hears #2") }
        XCTAssertEqual(hearing.count, 2, text)
        XCTAssertFalse(hearing[0].contains("◄"), "the first notification is fine")
        XCTAssertTrue(hearing[1].contains("◄ ✗1 duplicate-delivery"), "the second one is the violation: \(text)")
        let violation = try XCTUnwrap(story.violations.first)
        XCTAssertTrue(violation.message.contains("observe #1 heard about mutate #2 2 times"), violation.message)
        XCTAssertEqual(Set(violation.labels), ["#1", "#2"])
        XCTAssertTrue(text.contains("✗1 duplicate-delivery (at step"), text)
    }

    func testAPassingRunSaysTheOracleHeld() throws {
        let (story, result) = try story(
            [["observe c0 o0 k0 [initial,new] then unobserve-self", "mutate o0 k0"]],
            target: GuardTarget(diagnostics: CountingSink(keepsEvents: false)))
        XCTAssertTrue(result.passed)
        let text = StoryText(story: story).text
        XCTAssertTrue(text.contains("» #1 initial notification (new 0)"), text)
        XCTAssertTrue(text.contains("#2 unobserve in #1's handler (unobserve-self) → removed"), text)
        XCTAssertTrue(text.contains("The oracle held"), text)
        XCTAssertFalse(text.contains("◄ ✗"), text)
    }

    func testAChaosFileIsToldAsOneReplayInWallClockOrder() throws {
        let (story, _) = try story(
            [["observe c0 o0 k0 [new]", "mutate o0 k0", "unobserve c0 o0 k2"]], target: RawRuntimeTarget(), runner: .chaos)
        XCTAssertFalse(story.stepsAreScheduleSteps)
        XCTAssertTrue(story.header.provenance.contains("one chaos replay"), story.header.provenance)
        XCTAssertTrue(story.header.provenance.contains("not necessarily the original"), story.header.provenance)
        let text = StoryText(story: story).text
        XCTAssertTrue(text.contains("order │ worker 0"), text)
        XCTAssertTrue(text.contains("a chaos run does not place it"), text)
        XCTAssertTrue(text.contains("#3 unobserve c0 o0 k2 → returned"), text)
        let violation = try XCTUnwrap(story.violations.first)
        XCTAssertEqual(story.lines[violation.line].kind, .end, "an unplaced misuse is pinned to the end")
    }

    func testALongStoryKeepsItsStartTheRowsAroundEachViolationAndItsEnd() throws {
        var texts: [String] = []
        for index in 0..<40 { texts.append(index == 30 ? "unobserve c0 o0 k2" : "mutate o0 k\(index % 3)") }
        let (story, _) = try story([texts], target: RawRuntimeTarget())
        var printer = StoryText(story: story)
        printer.maximumRows = 20
        let text = printer.text
        XCTAssertTrue(text.contains("rows left out"), text)
        XCTAssertTrue(text.contains("#31 unobserve c0 o0 k2"), "the violation's rows are kept: \(text)")
        XCTAssertTrue(text.contains("◄ ✗1"), text)
        printer.maximumRows = nil
        XCTAssertFalse(printer.text.contains("rows left out"))
        XCTAssertGreaterThan(printer.lines.count, printer.maximumRows ?? 40)
    }

    // MARK: HTML

    func testThePageIsWellFormedSelfContainedAndHighlightsTheViolation() throws {
        let (story, _) = try story([["observe c0 o0 k0 [new]", "mutate o0 k0"]], target: DoubleDelivery())
        let html = StoryPage(story: story).html
        XCTAssertTrue(html.hasPrefix("<!DOCTYPE html>"))
        for forbidden in ["http", "<script", "<link", "src=", "@import", "url("] {
            XCTAssertFalse(html.contains(forbidden), "the page must not contain \(forbidden)")
        }
        XCTAssertTrue(html.contains("<svg"), "the picture is inline SVG")
        XCTAssertTrue(html.contains("<style>"), "the styles are inline")
        XCTAssertTrue(html.contains("✗1 duplicate-delivery"), "the violation is listed")
        XCTAssertTrue(html.contains("class=\"violation-line\""), "and marked in the picture")
        XCTAssertTrue(html.contains("span hit"), "the operations it names are highlighted")
        XCTAssertTrue(html.contains("registrations"), "registrations have lanes")
        XCTAssertTrue(html.contains("observe #1 heard about mutate #2 2 times"))

        let parser = XMLParser(data: Data(html.replacingOccurrences(of: "<!DOCTYPE html>", with: "").utf8))
        let collector = ElementCounter()
        parser.delegate = collector
        XCTAssertTrue(parser.parse(), "well-formed: \(parser.parserError.map { "\($0)" } ?? "")")
        XCTAssertEqual(collector.names.first, "html")
        XCTAssertGreaterThan(collector.names.filter { $0 == "rect" }.count, 2)
        XCTAssertEqual(collector.names.filter { $0 == "circle" }.count, 2, "one mark per notification")
    }

    /// The page of a run with no story (its process died) has the story page's head and escapes its title and text.
    func testATextPageIsWellFormedAndEscapesItsTitleAndText() {
        let html = StoryPage.textPage(title: "a<b>.json: crash(SIGSEGV) & more", text: "worker 0: observe <T: 0x1> \"k\"")
        XCTAssertTrue(html.hasPrefix("<!DOCTYPE html>"))
        XCTAssertTrue(html.contains("<title>a&lt;b&gt;.json: crash(SIGSEGV) &amp; more</title>"), html)
        XCTAssertTrue(html.contains("<pre>worker 0: observe &lt;T: 0x1&gt; &quot;k&quot;</pre>"), html)
        XCTAssertTrue(html.contains(ReportKind.pageGeneratorTag), "recognized as a page of ours when overwritten")
        XCTAssertTrue(html.contains("<style>"))
        let parser = XMLParser(data: Data(html.replacingOccurrences(of: "<!DOCTYPE html>", with: "").utf8))
        let collector = ElementCounter()
        parser.delegate = collector
        XCTAssertTrue(parser.parse(), "well-formed: \(parser.parserError.map { "\($0)" } ?? "")")
        XCTAssertEqual(collector.names, ["html", "head", "meta", "meta", "title", "style", "body", "h1", "pre"])
    }

    func testTextThatLooksLikeMarkupIsEscaped() {
        XCTAssertEqual(escape("a < b & \"c\" > d"), "a &lt; b &amp; &quot;c&quot; &gt; d")
    }

    private final class ElementCounter: NSObject, XMLParserDelegate {
        var names: [String] = []
        func parser(
            _ parser: XMLParser, didStartElement elementName: String, namespaceURI: String?, qualifiedName: String?,
            attributes: [String: String] = [:]
        ) {
            names.append(elementName)
        }
    }
}
