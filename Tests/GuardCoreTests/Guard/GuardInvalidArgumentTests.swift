import Foundation
import GuardCore
import XCTest

/// Invalid arguments: each is `.invalid(reason)` with exactly one `.invalidArgument` event, nothing registered, no
/// handler call, and no runtime misuse (in particular no `unknownKey`).
final class GuardInvalidArgumentTests: XCTestCase {
    private func assertNothingRegistered(
        _ controller: ObservationController<GuardTestObserver>, _ person: Person, file: StaticString = #filePath,
        line: UInt = #line
    ) {
        XCTAssertEqual(controller.registrationCount, 0, file: file, line: line)
        XCTAssertEqual(person.observationCount, 0, file: file, line: line)
        XCTAssertEqual(controller.observedKeyPaths(of: person), [], file: file, line: line)
    }

    func testNilObjectForObserveAndBothUnobserves() {
        let observer = GuardTestObserver()
        let (sink, controller) = makeController(for: observer)
        let nobody: Person? = nil
        var lines: [Int] = []
        assertNoMisuse {
            let line1 = #line + 1
            let observed = controller.observe(nobody, keyPath: "age", options: [.initial, .new]) { _, _, _ in
                XCTFail("handler ran")
            }
            let (byName, line2) = (controller.unobserve(nobody, keyPath: "age"), #line)
            let (byObject, line3) = (controller.unobserve(nobody), #line)
            XCTAssertEqual(observed, .invalid(.nilObject))
            XCTAssertEqual(byName, .invalid(.nilObject))
            XCTAssertEqual(byObject, .invalid(.nilObject))
            lines = [line1, line2, line3]
        }
        XCTAssertEqual(
            sink.records,
            [
                expectedDiagnostic(.invalidArgument, .nilObject, object: nil, keyPath: "age", line: lines[0]),
                expectedDiagnostic(.invalidArgument, .nilObject, object: nil, keyPath: "age", line: lines[1]),
                expectedDiagnostic(.invalidArgument, .nilObject, object: nil, keyPath: nil, line: lines[2]),
            ])
        XCTAssertEqual(controller.registrationCount, 0)
    }

    func testAWeakReferenceWhoseObjectIsGoneIsANilObject() {
        let observer = GuardTestObserver()
        let (sink, controller) = makeController(for: observer)
        weak var gone: Person?
        do {
            let person = Person()
            gone = person
        }
        var line = 0
        assertNoMisuse {
            line = #line + 1
            let result = controller.observe(gone, keyPath: "age") { _, _, _ in XCTFail("handler ran") }
            XCTAssertEqual(result, .invalid(.nilObject))
        }
        XCTAssertEqual(
            sink.records, [expectedDiagnostic(.invalidArgument, .nilObject, object: nil, keyPath: "age", line: line)])
    }

    func testEmptyAndMalformedKeyPaths() {
        let observer = GuardTestObserver()
        let (sink, controller) = makeController(for: observer)
        let person = Person()
        let malformed = ["", "a..b", "age.", ".age", "wallet..balance", "."]
        var expected: [DiagnosticRecord] = []
        assertNoMisuse {
            for keyPath in malformed {
                let observeLine = #line + 1
                let observed = controller.observe(person, keyPath: keyPath, options: [.initial, .new]) { _, _, _ in
                    XCTFail("handler ran")
                }
                XCTAssertEqual(observed, .invalid(.emptyKeyPath), "observe \"\(keyPath)\"")
                let (removed, removeLine) = (controller.unobserve(person, keyPath: keyPath), #line)
                XCTAssertEqual(removed, .invalid(.emptyKeyPath), "unobserve \"\(keyPath)\"")
                expected.append(
                    expectedDiagnostic(
                        .invalidArgument, .emptyKeyPath, object: person, keyPath: keyPath, line: observeLine))
                expected.append(
                    expectedDiagnostic(
                        .invalidArgument, .emptyKeyPath, object: person, keyPath: keyPath, line: removeLine))
            }
            person.age = 1
        }
        XCTAssertEqual(sink.records, expected)
        assertNothingRegistered(controller, person)
    }

    func testUnknownKeysAreUnobservableWithoutRuntimeMisuse() {
        let observer = GuardTestObserver()
        let (sink, controller) = makeController(for: observer)
        let person = Person()
        // "nope": no such key; "wallet.nope": unknown deeper in the chain; "plainNote.count": the intermediate value is
        // not an observable object.
        let unknown = ["nope", "wallet.nope", "plainNote.count", "Age"]
        var expected: [DiagnosticRecord] = []
        let baseline = liveObservances
        assertNoMisuse {
            for keyPath in unknown {
                let line = #line + 1
                let observed = controller.observe(person, keyPath: keyPath, options: [.initial, .new, .old, .prior]) {
                    _, _, _ in
                    XCTFail("handler ran")
                }
                XCTAssertEqual(observed, .invalid(.unobservableKeyPath), "observe \"\(keyPath)\"")
                expected.append(
                    expectedDiagnostic(
                        .invalidArgument, .unobservableKeyPath, object: person, keyPath: keyPath, line: line))
            }
            person.age = 1
        }
        XCTAssertEqual(sink.records, expected)
        assertNothingRegistered(controller, person)
        XCTAssertEqual(person.wallet.observationCount, 0)
        XCTAssertEqual(liveObservances, baseline)
        // Unobserving an unknown key that was never registered is simply "not registered".
        var line = 0
        assertNoMisuse {
            line = #line + 1
            XCTAssertEqual(controller.unobserve(person, keyPath: "nope"), .notRegistered)
        }
        XCTAssertEqual(
            sink.records.last, expectedDiagnostic(.removalOfUnregistered, object: person, keyPath: "nope", line: line))
    }

    func testAnInvalidObserveLeavesNoTraceInTheRemovalHistoryOrTheDedupTable() {
        let observer = GuardTestObserver()
        let (sink, controller) = makeController(for: observer)
        let person = Person()
        let log = HandlerLog()
        var lines: [Int] = []
        assertNoMisuse {
            let line1 = #line + 1
            let bad = controller.observe(person, keyPath: "nope") { _, _, _ in XCTFail("handler ran") }
            XCTAssertEqual(bad, .invalid(.unobservableKeyPath))
            let line2 = #line + 1
            let badAgain = controller.observe(person, keyPath: "nope") { _, _, _ in XCTFail("handler ran") }
            XCTAssertEqual(badAgain, .invalid(.unobservableKeyPath), "not a duplicate: nothing was registered")
            let (removal, line3) = (controller.unobserve(person, keyPath: "nope"), #line)
            XCTAssertEqual(removal, .notRegistered, "not a double removal")
            XCTAssertEqual(
                controller.observe(person, keyPath: "age", options: .new, handler: log.recording("h")), .registered,
                "a valid observe afterwards works")
            person.age = 2
            lines = [line1, line2, line3]
        }
        XCTAssertEqual(log.all, [expectedCall("h", observer: observer, object: person, keyPath: "age", new: 2)])
        XCTAssertEqual(
            sink.records,
            [
                expectedDiagnostic(
                    .invalidArgument, .unobservableKeyPath, object: person, keyPath: "nope", line: lines[0]),
                expectedDiagnostic(
                    .invalidArgument, .unobservableKeyPath, object: person, keyPath: "nope", line: lines[1]),
                expectedDiagnostic(.removalOfUnregistered, object: person, keyPath: "nope", line: lines[2]),
            ])
    }

    func testTypedKeyPathWithoutANameIsUnobservable() {
        let observer = GuardTestObserver()
        let (sink, controller) = makeController(for: observer)
        let person = Person()
        var lines: [Int] = []
        let computed: KeyPath<Person, String> = \.fullName
        assertNoMisuse {
            let line1 = #line + 1
            let observed = controller.observe(person, computed, options: [.initial, .new]) { _, _, _ in
                XCTFail("handler ran")
            }
            XCTAssertEqual(observed, .invalid(.unobservableKeyPath))
            let (removed, line2) = (controller.unobserve(person, computed), #line)
            XCTAssertEqual(removed, .invalid(.unobservableKeyPath))
            person.firstName = "x"
            lines = [line1, line2]
        }
        // Named readably, without the accessor address the key path prints.
        let rendered = "\\Person.<computed: String>"
        XCTAssertEqual(
            sink.records,
            [
                expectedDiagnostic(
                    .invalidArgument, .unobservableKeyPath, object: person, keyPath: rendered, line: lines[0]),
                expectedDiagnostic(
                    .invalidArgument, .unobservableKeyPath, object: person, keyPath: rendered, line: lines[1]),
            ])
        assertNothingRegistered(controller, person)
    }

    func testTypedKeyPathWithANilObject() {
        let observer = GuardTestObserver()
        let (sink, controller) = makeController(for: observer)
        let nobody: Person? = nil
        var lines: [Int] = []
        assertNoMisuse {
            let (observed, line1) = (controller.observe(nobody, \.age) { _, _, _ in XCTFail("handler ran") }, #line)
            let (removed, line2) = (controller.unobserve(nobody, \.age), #line)
            XCTAssertEqual(observed, .invalid(.nilObject))
            XCTAssertEqual(removed, .invalid(.nilObject))
            lines = [line1, line2]
        }
        let rendered = String(describing: \Person.age)
        XCTAssertEqual(
            sink.records,
            [
                expectedDiagnostic(.invalidArgument, .nilObject, object: nil, keyPath: rendered, line: lines[0]),
                expectedDiagnostic(.invalidArgument, .nilObject, object: nil, keyPath: rendered, line: lines[1]),
            ])
    }
}
