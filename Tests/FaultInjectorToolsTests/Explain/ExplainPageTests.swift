@testable import FaultInjector
import FaultInjectorTestSupport
@testable import FaultInjectorTools
import Foundation
import GuardCore
import XCTest

/// The picture tells the race: operation text in the lanes, the page's full width, the story's names in the
/// violations, registration bars that end where the runtime's registration ends, links from each violation to its
/// step, and no character that needs an emoji font.
final class ExplainPageTests: XCTestCase {
    /// The story of `texts` run under the controlled runner (random strategy, `seed`) against `target`.
    private func story(_ texts: [[String]], target: any SystemUnderTest, seed: UInt64 = 1) throws -> RunStory {
        let scenario = ControlledFixtures.scenario(texts, seed: seed)
        let result = ControlledRunner(settings: ControlledFixtures.settings(.random)).runAndEvaluate(scenario, against: target)
        let file = SeedFile(result: result, toolVersion: ToolVersion.current)
        return try Explainer(file: file, fileName: "page.json", target: target).explain()
    }

    /// A failing story of the check-then-act dedup race (two observes both say `registered`): its first failing
    /// seed.
    private func raceStory() throws -> RunStory {
        let target = ControlledTargets.RacyDedup()
        for seed: UInt64 in 1...200 {
            let story = try story([["observe c0 o0 k0 [new]", "mutate o0 k0"], ["observe c0 o0 k0 [new]"]], target: target, seed: seed)
            if !story.violations.isEmpty { return story }
        }
        XCTFail("200 schedules never hit the dedup race")
        throw CocoaError(.featureUnsupported)
    }

    func testEachOperationsTextAndResultAreInItsLaneAndTheNextBoxStartsAfterIt() throws {
        let story = try raceStory()
        let html = StoryPage(story: story).html
        for span in story.spans where span.depth == 0 {
            let caption = escape("\(span.label) \(span.text) → \(span.result)")
            XCTAssertTrue(html.contains("<text class=\"op\" x=\""), html)
            XCTAssertTrue(html.contains("\">\(caption)</text>"), "\(caption) is written in its box")
        }
        // In each lane the next box begins to the right of the previous box's text.
        let boxes = try NSRegularExpression(pattern: #"<rect class="span[^"]*" x="([0-9.]+)" y="([0-9.]+)"[^>]*/><text class="op" x="([0-9.]+)" y="[0-9.]+">([^<]*)</text>"#)
        var rows: [Double: [(box: Double, textEnd: Double)]] = [:]
        for match in boxes.matches(in: html, range: NSRange(html.startIndex..., in: html)) {
            let number = { (i: Int) in Double(html[Range(match.range(at: i), in: html)!])! }
            let text = String(html[Range(match.range(at: 4), in: html)!])
            let characters = text.replacingOccurrences(of: "&gt;", with: ">").replacingOccurrences(of: "&lt;", with: "<")
                .replacingOccurrences(of: "&amp;", with: "&").replacingOccurrences(of: "&quot;", with: "\"").count
            rows[number(2), default: []].append((number(1), number(3) + Double(characters) * Timeline.characterWidth))
        }
        XCTAssertEqual(rows.values.map(\.count).reduce(0, +), story.spans.count)
        for row in rows.values {
            let ordered = row.sorted { $0.box < $1.box }
            for (previous, next) in zip(ordered, ordered.dropFirst()) {
                XCTAssertLessThanOrEqual(previous.textEnd, next.box, "a caption runs into the next box: \(ordered)")
            }
        }
    }

    func testThePictureIsAsWideAsThePageAndNeverNarrowerThanItsLayout() throws {
        let html = StoryPage(story: try raceStory()).html
        let svg = try XCTUnwrap(html.range(of: #"<svg [^>]*>"#, options: .regularExpression).map { String(html[$0]) })
        XCTAssertTrue(svg.contains("width=\"100%\""), svg)
        XCTAssertNotNil(svg.range(of: #"min-width: [0-9]+px"#, options: .regularExpression), svg)
        XCTAssertFalse(svg.contains("height=\""), "the height follows the width: \(svg)")
        XCTAssertTrue(svg.contains("preserveAspectRatio=\"xMinYMin meet\""), svg)
    }

    func testViolationsNameInstancesAsTheStoryDoes() throws {
        let story = try raceStory()
        let messages = story.violations.map(\.message)
        XCTAssertTrue(messages.contains { $0.hasPrefix("c0, o0: no order of the calls explains observe #") }, "\(messages)")
        for message in messages {
            XCTAssertNil(message.range(of: #"\b(controller|object|observer) [0-9]+"#, options: .regularExpression), message)
        }
        let text = StoryText(story: story).text
        XCTAssertNil(text.range(of: #"\b(controller|object) [0-9]+"#, options: .regularExpression), text)
    }

    func testASlotsLaterInstancesArePrimedAndObserversNamedByTheirController() {
        let scenario = ControlledFixtures.scenario([["observe c0 o0 k0 []", "release-observer c0", "observe c0 o0 k0 []"]])
        var records: [OperationRecord] = []
        for (index, controller) in [(0, 10), (1, 10), (2, 12)] {
            var record = OperationRecord(id: index + 1, worker: 0, index: index, kind: index == 1 ? .releaseObserver : .observe)
            record.controller = controller
            record.observer = controller - 1
            record.object = index == 1 ? -1 : 20
            record.call = UInt64(index * 10)
            records.append(record)
        }
        let names = StoryNames(records: records, scenario: scenario)
        XCTAssertEqual(
            names.rename("controller 10, object 20; controller 12; observer 11 was gone; object 7 is unknown"),
            "c0, o0; c0′; the observer of c0′ was gone; object 7 is unknown")
    }

    /// On the raw runtime releasing the observer does not unregister it: the registration's bar goes on to the end
    /// of the run (and the next change messages the gone observer). The guard's controller unregisters as it goes.
    func testARegistrationsBarEndsWhereTheRuntimesRegistrationEnds() throws {
        let texts = [["observe c0 o0 k0 [new]", "release-observer c0", "mutate o0 k0"]]
        let raw = try story(texts, target: RawRuntimeTarget())
        let rawBar = try XCTUnwrap(raw.registrations.first)
        XCTAssertNil(rawBar.mayEnd, "the raw registration outlives release-observer")
        XCTAssertNil(rawBar.sureEnd)
        XCTAssertTrue(raw.misuses.contains { $0.kind == "observerDeallocated" })

        let guarded = try story(texts, target: GuardTarget(diagnostics: CountingSink(keepsEvents: false)))
        let bar = try XCTUnwrap(guarded.registrations.first)
        let release = try XCTUnwrap(guarded.spans.first { $0.text == "release-observer c0" })
        XCTAssertLessThanOrEqual(try XCTUnwrap(bar.sureEnd), try XCTUnwrap(release.ended), "the guard ends it with its controller")

        // A removal ends it on the raw runtime too.
        let removed = try story([["observe c0 o0 k0 [new]", "unobserve c0 o0 k0", "mutate o0 k0"]], target: RawRuntimeTarget())
        let removal = try XCTUnwrap(removed.spans.first { $0.text == "unobserve c0 o0 k0" })
        XCTAssertEqual(removed.registrations.first?.sureEnd, removal.ended)
    }

    func testEachViolationLinksToItsStepInThePictureAndItsRowInTheText() throws {
        let story = try raceStory()
        XCTAssertFalse(story.violations.isEmpty)
        let html = StoryPage(story: story).html
        for violation in story.violations {
            let n = violation.number
            XCTAssertTrue(html.contains("<a href=\"#violation-\(n)\">"), "the list links violation \(n) to the picture")
            XCTAssertEqual(html.components(separatedBy: "id=\"violation-\(n)\"").count, 2, "one mark with that id")
            XCTAssertTrue(html.contains("href=\"#story-violation-\(n)\""), "and to its row in the text")
            XCTAssertEqual(html.components(separatedBy: "id=\"story-violation-\(n)\"").count, 2, "one row with that id")
        }
    }

    /// Every character the story writes is plain text in the common fonts: nothing with an emoji form at all, so no
    /// platform draws a coloured picture or needs an emoji font.
    func testNoCharacterNeedsAnEmojiFont() throws {
        let stories = [
            try raceStory(),
            try story([["observe c0 o0 k0 [initial,new]", "release-observer c0", "mutate o0 k0", "unobserve c0 o0 k1"]], target: RawRuntimeTarget()),
        ]
        for story in stories {
            let output = StoryPage(story: story).html + StoryText(story: story).text
            let emoji = Set(output.unicodeScalars.filter { $0.value > 0x7F && ($0.properties.isEmoji || $0.properties.isEmojiPresentation) })
            XCTAssertEqual(emoji, [], "characters with an emoji form: \(emoji.map { String(format: "U+%04X", $0.value) })")
        }
        for glyph in [StoryGlyph.notification, StoryGlyph.misuse, StoryGlyph.waits, StoryGlyph.preempted, StoryGlyph.result, StoryGlyph.violation] {
            XCTAssertFalse(glyph.unicodeScalars.contains { $0.properties.isEmoji }, glyph)
        }
    }
}
