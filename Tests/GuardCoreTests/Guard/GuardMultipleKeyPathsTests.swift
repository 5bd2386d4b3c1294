import Foundation
import GuardCore
import XCTest

/// `observe(_:keyPaths:...)`: one result per key path, in order; an empty list is an invalid argument.
final class GuardMultipleKeyPathsTests: XCTestCase {
    func testSeveralKeyPathsRegisterEachInOrderAndAllFire() {
        let observer = GuardTestObserver()
        let (sink, controller) = makeController(for: observer)
        let person = Person()
        let log = HandlerLog()
        assertNoMisuse {
            let results = controller.observe(
                person, keyPaths: ["name", "age", "nickname"], options: .new, handler: log.recording("h"))
            XCTAssertEqual(results, [.registered, .registered, .registered])
            person.age = 1
            person.nickname = "N"
            person.name = "Nat"
            person.firstName = "ignored"
        }
        XCTAssertEqual(
            log.all,
            [
                expectedCall("h", observer: observer, object: person, keyPath: "age", new: 1),
                expectedCall("h", observer: observer, object: person, keyPath: "nickname", new: "N"),
                expectedCall("h", observer: observer, object: person, keyPath: "name", new: "Nat"),
            ])
        XCTAssertEqual(controller.registrationCount, 3)
        XCTAssertEqual(controller.observedKeyPaths(of: person), ["age", "name", "nickname"])
        XCTAssertEqual(person.observationCount, 3)
        XCTAssertEqual(sink.records, [])
    }

    func testInitialForSeveralKeyPathsArrivesInListOrderBeforeReturn() {
        let observer = GuardTestObserver()
        let (sink, controller) = makeController(for: observer)
        let person = Person()
        person.name = "Iris"
        person.age = 30
        let log = HandlerLog()
        assertNoMisuse {
            let results = controller.observe(
                person, keyPaths: ["age", "name"], options: [.initial, .new], handler: log.recording("h"))
            XCTAssertEqual(results, [.registered, .registered])
            XCTAssertEqual(
                log.all,
                [
                    expectedCall("h", observer: observer, object: person, keyPath: "age", new: 30),
                    expectedCall("h", observer: observer, object: person, keyPath: "name", new: "Iris"),
                ])
        }
        XCTAssertEqual(sink.records, [])
    }

    func testDuplicatesAndInvalidEntriesInTheListGetTheirOwnResultAndEvent() {
        let observer = GuardTestObserver()
        let (sink, controller) = makeController(for: observer)
        let person = Person()
        let log = HandlerLog()
        var line = 0
        assertNoMisuse {
            line = #line + 1
            let results = controller.observe(
                person, keyPaths: ["name", "nope", "name", "a..b", "age"], options: .new, handler: log.recording("h"))
            XCTAssertEqual(
                results,
                [.registered, .invalid(.unobservableKeyPath), .duplicate, .invalid(.emptyKeyPath), .registered])
            person.name = "x"
            person.age = 2
        }
        XCTAssertEqual(
            log.all,
            [
                expectedCall("h", observer: observer, object: person, keyPath: "name", new: "x"),
                expectedCall("h", observer: observer, object: person, keyPath: "age", new: 2),
            ])
        XCTAssertEqual(
            sink.records,
            [
                expectedDiagnostic(.invalidArgument, .unobservableKeyPath, object: person, keyPath: "nope", line: line),
                expectedDiagnostic(.duplicateObservation, object: person, keyPath: "name", line: line),
                expectedDiagnostic(.invalidArgument, .emptyKeyPath, object: person, keyPath: "a..b", line: line),
            ])
        XCTAssertEqual(controller.registrationCount, 2)
        XCTAssertEqual(person.observationCount, 2)
    }

    func testEmptyListIsAnInvalidArgumentWithNoResults() {
        let observer = GuardTestObserver()
        let (sink, controller) = makeController(for: observer)
        let person = Person()
        let log = HandlerLog()
        var line = 0
        assertNoMisuse {
            line = #line + 1
            let results = controller.observe(
                person, keyPaths: [], options: [.initial, .new], handler: log.recording("h"))
            XCTAssertEqual(results, [])
            person.name = "x"
        }
        XCTAssertEqual(log.all, [])
        XCTAssertEqual(
            sink.records,
            [expectedDiagnostic(.invalidArgument, .emptyKeyPathList, object: person, keyPath: nil, line: line)])
        XCTAssertEqual(controller.registrationCount, 0)
        XCTAssertEqual(person.observationCount, 0)
    }

    func testEmptyListWithANilObjectIsStillOneEmptyListEvent() {
        let observer = GuardTestObserver()
        let (sink, controller) = makeController(for: observer)
        let nobody: Person? = nil
        var line = 0
        assertNoMisuse {
            line = #line + 1
            let results = controller.observe(nobody, keyPaths: [], options: .new) { _, _, _ in
                XCTFail("no handler call")
            }
            XCTAssertEqual(results, [])
        }
        XCTAssertEqual(
            sink.records,
            [expectedDiagnostic(.invalidArgument, .emptyKeyPathList, object: nil, keyPath: nil, line: line)])
    }

    func testNilObjectWithSeveralKeyPathsGivesOneInvalidResultPerKeyPath() {
        let observer = GuardTestObserver()
        let (sink, controller) = makeController(for: observer)
        let nobody: Person? = nil
        var line = 0
        assertNoMisuse {
            line = #line + 1
            let results = controller.observe(nobody, keyPaths: ["age", "name"]) { _, _, _ in XCTFail("no handler call")
            }
            XCTAssertEqual(results, [.invalid(.nilObject), .invalid(.nilObject)])
        }
        XCTAssertEqual(
            sink.records,
            [
                expectedDiagnostic(.invalidArgument, .nilObject, object: nil, keyPath: "age", line: line),
                expectedDiagnostic(.invalidArgument, .nilObject, object: nil, keyPath: "name", line: line),
            ])
        XCTAssertEqual(controller.registrationCount, 0)
    }

    // MARK: Forwarding variant

    func testForwardingVariantWithSeveralKeyPathsAndContext() {
        let recorder = Recorder()
        let (sink, controller) = makeController(for: recorder)
        let person = Person()
        var line = 0
        assertNoMisuse {
            line = #line + 1
            let results = controller.observe(
                person, keyPaths: ["age", "name", "age"], options: .new, context: Contexts.first)
            XCTAssertEqual(results, [.registered, .registered, .duplicate])
            person.name = "Q"
            person.age = 5
        }
        let received = recorder.received
        XCTAssertEqual(received.map(\.keyPath), ["name", "age"])
        XCTAssertEqual(received.map(\.context), [Contexts.first, Contexts.first])
        XCTAssertEqual(received.map(\.object), [ObjectIdentifier(person), ObjectIdentifier(person)])
        XCTAssertEqual(received.map { GuardValue.of($0.change.newValue) }, ["Q", 5])
        XCTAssertEqual(
            sink.records,
            [
                expectedDiagnostic(
                    .duplicateObservation, observerType: Recorder.self, object: person, keyPath: "age", line: line)
            ])
    }

    func testForwardingVariantWithAnEmptyListIsAnInvalidArgument() {
        let recorder = Recorder()
        let (sink, controller) = makeController(for: recorder)
        let person = Person()
        var line = 0
        assertNoMisuse {
            line = #line + 1
            XCTAssertEqual(controller.observe(person, keyPaths: [], options: .new, context: Contexts.first), [])
            person.age = 1
        }
        XCTAssertEqual(recorder.count, 0)
        XCTAssertEqual(
            sink.records,
            [
                expectedDiagnostic(
                    .invalidArgument, .emptyKeyPathList, observerType: Recorder.self, object: person, keyPath: nil,
                    line: line)
            ])
        XCTAssertEqual(controller.registrationCount, 0)
    }
}
