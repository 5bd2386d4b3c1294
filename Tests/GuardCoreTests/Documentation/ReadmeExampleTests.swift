import Foundation
import GuardCore
import XCTest

// The README's "Embed the guard" example, verbatim (between the markers). `testReadmeShowsThisExample` keeps the
// two in sync; the other tests run it.
// README-EXAMPLE-BEGIN
final class Profile: KVOObject {
    @Observed var name = ""
    @Observed var age = 0
}

final class ProfileViewModel {
    private(set) var lines: [String] = []
    private lazy var observations = ObservationController(observer: self)

    func bind(to profile: Profile) {
        observations.observe(profile, keyPath: "age", options: [.initial, .new]) { model, _, change in
            model.lines.append("age \(change.newValue(as: Int.self) ?? 0)")
        }
        // A Swift key path works too, with typed values; observing the same key path twice is a no-op.
        observations.observe(profile, \.name, options: [.new]) { model, _, change in
            model.lines.append("name \(change.newValue ?? "")")
        }
    }

    func unbind(from profile: Profile) {
        // Removing twice, or removing what was never added, is a logged no-op (Foundation would raise).
        observations.unobserve(profile)
    }
}
// README-EXAMPLE-END

final class ReadmeExampleTests: XCTestCase {
    func testReadmeShowsThisExample() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent()
        let readme = try String(contentsOf: root.appendingPathComponent("README.md"), encoding: .utf8)
        let source = try String(contentsOf: URL(fileURLWithPath: #filePath), encoding: .utf8)
        let begin = try XCTUnwrap(source.range(of: "// README-EXAMPLE-BEGIN\n"))
        let end = try XCTUnwrap(source.range(of: "// README-EXAMPLE-END"))
        let example = String(source[begin.upperBound..<end.lowerBound])
        XCTAssertTrue(
            readme.contains("```swift\nimport GuardCore\n\n" + example + "```"),
            "README.md's example differs from the one compiled here; update both together")
    }

    func testTheExampleObservesAndAbsorbsTheDoubleRemoval() {
        let sink = CountingSink()
        let profile = Profile()
        let model = ProfileViewModel()
        GuardDiagnostics.withSink(sink) {
            assertNoMisuse {
                model.bind(to: profile)
                model.bind(to: profile)  // twice: both key paths are duplicates
                profile.age = 42
                profile.name = "Ada"
                model.unbind(from: profile)
                model.unbind(from: profile)  // double removal
                profile.age = 43
            }
        }
        XCTAssertEqual(model.lines, ["age 0", "age 42", "name Ada"])
        XCTAssertEqual(sink.count(of: .duplicateObservation), 2)
        XCTAssertEqual(sink.count(of: .doubleRemoval), 1)
        XCTAssertEqual(sink.total, 3)
        XCTAssertEqual(profile.observationCount, 0)
    }
}
