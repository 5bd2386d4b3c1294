import Foundation
import GuardCore
import XCTest

/// Options none / `.new` / all, with exact notification sequences; the handler (block) variant and the forwarding
/// variant; change kinds of every sort passing through the guard.
final class GuardOptionsTests: XCTestCase {
    func testNoOptionsDeliversBareSettingsAndNoInitial() {
        let observer = GuardTestObserver()
        let (sink, controller) = makeController(for: observer)
        let person = Person()
        let log = HandlerLog()
        assertNoMisuse {
            let result = controller.observe(person, keyPath: "name", handler: log.recording("h"))
            XCTAssertEqual(result, .registered)
            XCTAssertEqual(log.all, [], "no .initial notification without the option")
            person.name = "Ann"
            person.name = "Bob"
            person.age = 7  // not observed
        }
        XCTAssertEqual(
            log.all,
            [
                expectedCall("h", observer: observer, object: person, keyPath: "name"),
                expectedCall("h", observer: observer, object: person, keyPath: "name"),
            ])
        XCTAssertEqual(sink.records, [])
        XCTAssertTrue(controller.isObserving(person, keyPath: "name"))
        XCTAssertEqual(controller.registrationCount, 1)
        XCTAssertEqual(person.observationCount, 1)
    }

    func testNewOptionDeliversNewValuesOnly() {
        let observer = GuardTestObserver()
        let (sink, controller) = makeController(for: observer)
        let person = Person()
        let log = HandlerLog()
        assertNoMisuse {
            XCTAssertEqual(
                controller.observe(person, keyPath: "age", options: .new, handler: log.recording("h")), .registered)
            person.age = 1
            person.age = 2
            person.age = 2  // setting the same value still notifies, as in Foundation
        }
        XCTAssertEqual(
            log.all,
            [
                expectedCall("h", observer: observer, object: person, keyPath: "age", new: 1),
                expectedCall("h", observer: observer, object: person, keyPath: "age", new: 2),
                expectedCall("h", observer: observer, object: person, keyPath: "age", new: 2),
            ])
        XCTAssertEqual(sink.records, [])
    }

    func testAllOptionsDeliverInitialThenPriorAndChangeInOrder() {
        let observer = GuardTestObserver()
        let (sink, controller) = makeController(for: observer)
        let person = Person()
        person.age = 4
        let log = HandlerLog()
        assertNoMisuse {
            let result = controller.observe(
                person, keyPath: "age", options: [.initial, .new, .old, .prior], handler: log.recording("h"))
            XCTAssertEqual(result, .registered)
            XCTAssertEqual(
                log.all, [expectedCall("h", observer: observer, object: person, keyPath: "age", new: 4)],
                "the initial notification has the current value and no old value")
            person.age = 5
            person.age = 6
        }
        XCTAssertEqual(
            log.all,
            [
                expectedCall("h", observer: observer, object: person, keyPath: "age", new: 4),
                expectedCall("h", observer: observer, object: person, keyPath: "age", old: 4, prior: true),
                expectedCall("h", observer: observer, object: person, keyPath: "age", old: 4, new: 5),
                expectedCall("h", observer: observer, object: person, keyPath: "age", old: 5, prior: true),
                expectedCall("h", observer: observer, object: person, keyPath: "age", old: 5, new: 6),
            ])
        XCTAssertEqual(sink.records, [])
    }

    func testAllOptionsOnAnOptionalPropertyReportNilAsPresent() {
        let observer = GuardTestObserver()
        let (sink, controller) = makeController(for: observer)
        let person = Person()
        let log = HandlerLog()
        assertNoMisuse {
            controller.observe(
                person, keyPath: "nickname", options: [.initial, .new, .old, .prior], handler: log.recording("h"))
            person.nickname = "Bo"
            person.nickname = nil
        }
        XCTAssertEqual(
            log.all,
            [
                expectedCall("h", observer: observer, object: person, keyPath: "nickname", new: .nilValue),
                expectedCall("h", observer: observer, object: person, keyPath: "nickname", old: .nilValue, prior: true),
                expectedCall("h", observer: observer, object: person, keyPath: "nickname", old: .nilValue, new: "Bo"),
                expectedCall("h", observer: observer, object: person, keyPath: "nickname", old: "Bo", prior: true),
                expectedCall("h", observer: observer, object: person, keyPath: "nickname", old: "Bo", new: .nilValue),
            ])
        XCTAssertEqual(sink.records, [])
    }

    func testOldWithoutNewAndPriorWithoutOld() {
        let observer = GuardTestObserver()
        let (sink, controller) = makeController(for: observer)
        let person = Person()
        let log = HandlerLog()
        assertNoMisuse {
            controller.observe(person, keyPath: "age", options: .old, handler: log.recording("old"))
            controller.observe(person, keyPath: "name", options: [.prior, .initial], handler: log.recording("prior"))
            person.age = 3
            person.name = "Cy"
        }
        XCTAssertEqual(
            log.all,
            [
                expectedCall("prior", observer: observer, object: person, keyPath: "name"),
                expectedCall("old", observer: observer, object: person, keyPath: "age", old: 0),
                expectedCall("prior", observer: observer, object: person, keyPath: "name", prior: true),
                expectedCall("prior", observer: observer, object: person, keyPath: "name"),
            ])
        XCTAssertEqual(sink.records, [])
    }

    func testHandlerRunsSynchronouslyOnTheChangingThread() {
        let observer = GuardTestObserver()
        let (sink, controller) = makeController(for: observer)
        let person = Person()
        let log = HandlerLog()
        let workerThread = LockedBox<Thread?>(nil)
        assertNoMisuse {
            controller.observe(person, keyPath: "age", options: .new, handler: log.recording("h"))
            person.age = 1
            XCTAssertEqual(log.count, 1, "delivered before the setter returned")
            _ = onOtherThread {
                workerThread.value = Thread.current
                person.age = 2
                return log.count
            }.map { XCTAssertEqual($0, 2, "delivered before the setter returned on the other thread") }
        }
        XCTAssertEqual(
            log.all,
            [
                expectedCall("h", observer: observer, object: person, keyPath: "age", new: 1),
                expectedCall("h", observer: observer, object: person, keyPath: "age", new: 2),
            ])
        let threads = log.threads
        XCTAssertEqual(threads.count, 2)
        XCTAssertTrue(threads.first === Thread.current)
        XCTAssertTrue(threads.last === workerThread.value)
        XCTAssertFalse(threads.last === Thread.current)
        XCTAssertEqual(sink.records, [])
    }

    // MARK: Forwarding variant

    func testForwardingVariantCallsObserveValueWithTheCallersContext() {
        let recorder = Recorder()
        let (sink, controller) = makeController(for: recorder)
        let person = Person()
        person.name = "Di"
        assertNoMisuse {
            XCTAssertEqual(
                controller.observe(person, keyPath: "age", options: .new, context: Contexts.first), .registered)
            XCTAssertEqual(
                controller.observe(person, keyPath: "name", options: [.initial, .new, .old], context: Contexts.second),
                .registered)
            XCTAssertEqual(controller.observe(person, keyPath: "nickname", options: [], context: nil), .registered)
            person.age = 9
            person.name = "Ed"
            person.nickname = "E"
        }
        let received = recorder.received
        XCTAssertEqual(received.map(\.keyPath), ["name", "age", "name", "nickname"])
        XCTAssertEqual(received.map(\.object), Array(repeating: ObjectIdentifier(person), count: 4))
        XCTAssertEqual(received.map(\.context), [Contexts.second, Contexts.first, Contexts.second, nil])
        XCTAssertEqual(received.map { $0.change.keyPath }, ["name", "age", "name", "nickname"])
        XCTAssertEqual(received.map { GuardValue.of($0.change.newValue) }, ["Di", 9, "Ed", .absent])
        XCTAssertEqual(received.map { GuardValue.of($0.change.oldValue) }, [.absent, .absent, "Di", .absent])
        XCTAssertEqual(received.map(\.change.isPrior), [false, false, false, false])
        XCTAssertEqual(received.map(\.change.kind), [.setting, .setting, .setting, .setting])
        XCTAssertTrue(received.allSatisfy { $0.thread === Thread.current })
        XCTAssertEqual(sink.records, [])
    }

    func testForwardingVariantWithAllOptionsDeliversPriorAndInitial() {
        let recorder = Recorder()
        let (sink, controller) = makeController(for: recorder)
        let person = Person()
        assertNoMisuse {
            controller.observe(
                person, keyPath: "age", options: [.initial, .new, .old, .prior], context: Contexts.third)
            person.age = 2
            controller.unobserve(person, keyPath: "age")
            person.age = 3
        }
        let received = recorder.received
        XCTAssertEqual(received.map(\.keyPath), ["age", "age", "age"])
        XCTAssertEqual(received.map(\.context), [Contexts.third, Contexts.third, Contexts.third])
        XCTAssertEqual(received.map { GuardValue.of($0.change.newValue) }, [0, .absent, 2])
        XCTAssertEqual(received.map { GuardValue.of($0.change.oldValue) }, [.absent, 0, 0])
        XCTAssertEqual(received.map(\.change.isPrior), [false, true, false])
        XCTAssertEqual(sink.records, [])
        XCTAssertEqual(person.observationCount, 0)
    }

    // MARK: Change kinds through the guard

    func testToManyChangesPassKindIndexesAndValuesThrough() {
        let observer = GuardTestObserver()
        let (sink, controller) = makeController(for: observer)
        let person = Person()
        person.items = ["a", "b"]
        let log = HandlerLog()
        assertNoMisuse {
            controller.observe(person, keyPath: "items", options: [.old, .new], handler: log.recording("h"))
            person.insert(["x"], at: IndexSet(integer: 1), into: \.items)
            person.replaceElements(at: IndexSet(integer: 0), with: ["A"], in: \.items)
            person.removeElements(at: IndexSet(integer: 2), from: \.items)
            person.items = ["z"]
        }
        XCTAssertEqual(person.items, ["z"])
        XCTAssertEqual(
            log.all,
            [
                expectedCall(
                    "h", observer: observer, object: person, keyPath: "items", kind: .insertion, new: ["x"],
                    indexes: [1]),
                expectedCall(
                    "h", observer: observer, object: person, keyPath: "items", kind: .replacement, old: ["a"],
                    new: ["A"],
                    indexes: [0]),
                expectedCall(
                    "h", observer: observer, object: person, keyPath: "items", kind: .removal, old: ["b"], indexes: [2]),
                expectedCall("h", observer: observer, object: person, keyPath: "items", old: ["A", "x"], new: ["z"]),
            ])
        XCTAssertEqual(sink.records, [])
    }

    func testDependentAndDottedKeyPathsThroughTheGuard() {
        let observer = GuardTestObserver()
        let (sink, controller) = makeController(for: observer)
        let person = Person()
        let log = HandlerLog()
        assertNoMisuse {
            controller.observe(person, keyPath: "fullName", options: [.old, .new], handler: log.recording("full"))
            controller.observe(person, keyPath: "wallet.balance", options: .new, handler: log.recording("wallet"))
            person.firstName = "Al"
            person.lastName = "Bo"
            person.wallet.balance = 10
            controller.unobserveAll()
            person.firstName = "X"
            person.wallet.balance = 11
        }
        XCTAssertEqual(
            log.all,
            [
                expectedCall("full", observer: observer, object: person, keyPath: "fullName", old: " ", new: "Al "),
                expectedCall("full", observer: observer, object: person, keyPath: "fullName", old: "Al ", new: "Al Bo"),
                expectedCall("wallet", observer: observer, object: person, keyPath: "wallet.balance", new: 10),
            ])
        XCTAssertEqual(sink.records, [])
        XCTAssertEqual(person.observationCount, 0)
        XCTAssertEqual(person.wallet.observationCount, 0, "the dotted path's forwarder is gone too")
    }
}
