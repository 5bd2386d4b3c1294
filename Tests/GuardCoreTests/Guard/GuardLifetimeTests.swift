import Foundation
import GuardCore
import XCTest

/// Teardown and ownership: releasing the controller, releasing the observer, strong versus weak holding of observed
/// objects (FBKVOController issue #140), and an object observing itself.
final class GuardLifetimeTests: XCTestCase {
    // MARK: Controller released

    func testReleasingTheControllerUnregistersEverything() {
        let observer = GuardTestObserver()
        let sink = CountingSink()
        let first = Person()
        let second = Person()
        let log = HandlerLog()
        let baseline = liveObservances
        weak var weakController: ObservationController<GuardTestObserver>?
        assertNoMisuse {
            do {
                let controller = ObservationController(observer: observer, diagnosticSink: sink)
                weakController = controller
                controller.observe(first, keyPaths: ["age", "name"], options: .new, handler: log.recording("first"))
                controller.observe(
                    second, keyPath: "fullName", options: [.new, .prior], handler: log.recording("second"))
                XCTAssertEqual(liveObservances, baseline + 3)
                first.age = 1
            }
            first.age = 2
            first.name = "n"
            second.firstName = "f"
        }
        XCTAssertNil(weakController)
        XCTAssertEqual(log.all, [expectedCall("first", observer: observer, object: first, keyPath: "age", new: 1)])
        XCTAssertEqual(first.observationCount, 0)
        XCTAssertEqual(second.observationCount, 0)
        XCTAssertEqual(liveObservances, baseline)
        XCTAssertEqual(sink.records, [])
    }

    func testReleasingTheControllerReleasesRetainedObjects() {
        let observer = GuardTestObserver()
        let sink = CountingSink()
        weak var weakPerson: Person?
        var controller: ObservationController<GuardTestObserver>? = ObservationController(
            observer: observer, diagnosticSink: sink)
        let baseline = liveObservances
        assertNoMisuse {
            do {
                let person = Person()
                weakPerson = person
                controller?.observe(person, keyPath: "age") { _, _, change in
                    XCTFail("unexpected handler call: \(change)")
                }
            }
            XCTAssertNotNil(weakPerson, "the controller holds observed objects strongly by default")
            controller = nil
        }
        XCTAssertNil(weakPerson)
        XCTAssertEqual(liveObservances, baseline)
        XCTAssertEqual(sink.records, [])
    }

    // MARK: Observer released

    func testObserverReleasedHandlerNeverRunsAndOneEventPerRegistration() {
        let sink = CountingSink()
        let person = Person()
        let log = HandlerLog()
        weak var weakObserver: GuardTestObserver?
        var lines: [Int] = []
        var controller: ObservationController<GuardTestObserver>?
        assertNoMisuse {
            do {
                let observer = GuardTestObserver()
                weakObserver = observer
                controller = ObservationController(observer: observer, diagnosticSink: sink)
                lines.append(#line + 1)
                controller?.observe(person, keyPath: "age", options: .new, handler: log.recording("age"))
                lines.append(#line + 1)
                controller?.observe(person, keyPath: "name", options: [.old, .prior], handler: log.recording("name"))
                XCTAssertTrue(controller?.observer === observer)
            }
            XCTAssertNil(weakObserver)
            XCTAssertNil(controller?.observer)
            for value in 1...3 {
                person.age = value
                person.name = "n\(value)"
            }
        }
        XCTAssertEqual(log.all, [])
        XCTAssertEqual(
            sink.records,
            [
                expectedDiagnostic(.observerDeallocated, object: person, keyPath: "age", line: lines[0]),
                expectedDiagnostic(.observerDeallocated, object: person, keyPath: "name", line: lines[1]),
            ])
        XCTAssertEqual(controller?.registrationCount, 2, "the registrations stay until removed")
        let baselineDrop = person.observationCount
        XCTAssertEqual(baselineDrop, 2)
        assertNoMisuse {
            controller?.unobserveAll()
            person.age = 9
        }
        XCTAssertEqual(person.observationCount, 0)
        XCTAssertEqual(sink.records.count, 2, "no further events after the registrations are gone")
        controller = nil
    }

    func testObserverReleasedThenControllerReleasedLeavesNoTrace() {
        let sink = CountingSink()
        let person = Person()
        let baseline = liveObservances
        let log = HandlerLog()
        var line = 0
        var expected: [HandlerCall] = []
        assertNoMisuse {
            var controller: ObservationController<GuardTestObserver>?
            do {
                let observer = GuardTestObserver()
                controller = ObservationController(observer: observer, diagnosticSink: sink)
                line = #line + 1
                controller?.observe(person, keyPath: "age", options: [.initial, .new], handler: log.recording("h"))
                expected = [expectedCall("h", observer: observer, object: person, keyPath: "age", new: 0)]
            }
            person.age = 1
            person.age = 2
            controller = nil
            person.age = 3
        }
        XCTAssertEqual(log.all, expected, "only the initial notification, while the observer lived")
        XCTAssertEqual(
            sink.records, [expectedDiagnostic(.observerDeallocated, object: person, keyPath: "age", line: line)])
        XCTAssertEqual(person.observationCount, 0)
        XCTAssertEqual(liveObservances, baseline)
    }

    /// A controller whose observer is gone can never run a handler: `observe` says so (`.invalid(.observerDeallocated)`,
    /// one event) instead of reporting `.registered` without the `.initial` notification it promises.
    func testObservingWithAnAlreadyDeadObserverIsInvalidWithOneEvent() {
        let sink = CountingSink()
        let person = Person()
        var controller: ObservationController<GuardTestObserver>?
        do {
            let observer = GuardTestObserver()
            controller = ObservationController(observer: observer, diagnosticSink: sink)
        }
        var line = 0
        assertNoMisuse {
            line = #line + 1
            let result = controller?.observe(person, keyPath: "age", options: [.initial, .new]) { _, _, _ in
                XCTFail("handler ran without an observer")
            }
            XCTAssertEqual(result, .invalid(.observerDeallocated))
            person.age = 4
        }
        XCTAssertEqual(
            sink.records,
            [expectedDiagnostic(.invalidArgument, .observerDeallocated, object: person, keyPath: "age", line: line)])
        XCTAssertEqual(controller?.registrationCount, 0)
        controller = nil
        XCTAssertEqual(person.observationCount, 0)
    }

    /// The same without `.initial` (where the controller only asks whether its observer lives, without a reference to
    /// it), for each option set: nothing is registered and no handler ever runs.
    func testObservingWithoutInitialWithAnAlreadyDeadObserverIsInvalidWithOneEvent() {
        for options: KeyValueObservingOptions in [[], [.new], [.old, .prior]] {
            let sink = CountingSink()
            let person = Person()
            var controller: ObservationController<GuardTestObserver>?
            weak var weakObserver: GuardTestObserver?
            do {
                let observer = GuardTestObserver()
                weakObserver = observer
                controller = ObservationController(observer: observer, diagnosticSink: sink)
            }
            XCTAssertNil(weakObserver, "the controller does not keep its observer alive")
            var line = 0
            assertNoMisuse {
                line = #line + 1
                let result = controller?.observe(person, keyPath: "age", options: options) { _, _, _ in
                    XCTFail("handler ran without an observer")
                }
                XCTAssertEqual(result, .invalid(.observerDeallocated), "\(options)")
                person.age = 4
            }
            XCTAssertEqual(
                sink.records,
                [expectedDiagnostic(.invalidArgument, .observerDeallocated, object: person, keyPath: "age", line: line)],
                "\(options)")
            XCTAssertEqual(controller?.registrationCount, 0)
            controller = nil
            XCTAssertEqual(person.observationCount, 0)
        }
    }

    // MARK: Strong versus weak holding

    func testDefaultControllerKeepsObjectsAliveUntilUnobserve() {
        let observer = GuardTestObserver()
        let (sink, controller) = makeController(for: observer)
        XCTAssertTrue(controller.retainsObservedObjects)
        weak var weakPerson: Person?
        assertNoMisuse {
            do {
                let person = Person()
                weakPerson = person
                controller.observe(person, keyPaths: ["age", "name"]) { _, _, change in
                    XCTFail("unexpected handler call: \(change)")
                }
            }
            XCTAssertNotNil(weakPerson)
            XCTAssertEqual(controller.unobserve(weakPerson, keyPath: "age"), .removed)
            XCTAssertNotNil(weakPerson, "still held by the remaining registration")
            XCTAssertEqual(controller.unobserve(weakPerson, keyPath: "name"), .removed)
        }
        XCTAssertNil(weakPerson)
        XCTAssertEqual(controller.registrationCount, 0)
        XCTAssertEqual(sink.records, [])
    }

    func testDefaultControllerReleasesObjectsAfterUnobserveObjectAndUnobserveAll() {
        let observer = GuardTestObserver()
        let (sink, controller) = makeController(for: observer)
        weak var first: Person?
        weak var second: Person?
        weak var third: Person?
        assertNoMisuse {
            do {
                let a = Person()
                let b = Person()
                let c = Person()
                (first, second, third) = (a, b, c)
                controller.observe(a, keyPaths: ["age", "name"]) { _, _, change in
                    XCTFail("unexpected handler call: \(change)")
                }
                controller.observe(b, keyPath: "age") { _, _, change in XCTFail("unexpected handler call: \(change)") }
                controller.observe(c, keyPath: "wallet.balance") { _, _, change in
                    XCTFail("unexpected handler call: \(change)")
                }
            }
            XCTAssertNotNil(first)
            XCTAssertNotNil(second)
            XCTAssertNotNil(third)
            XCTAssertEqual(controller.unobserve(first), .removed)
            XCTAssertNil(first)
            XCTAssertNotNil(second)
            controller.unobserveAll()
        }
        XCTAssertNil(second)
        XCTAssertNil(third)
        XCTAssertEqual(sink.records, [])
    }

    func testWeakControllerDropsTheRegistrationsOfADeinitializedObject() {
        // FBKVOController issue #140, in its plainest form: the only observed object goes away while observed.
        let observer = GuardTestObserver()
        let (sink, controller) = makeController(for: observer, retainsObservedObjects: false)
        let log = HandlerLog()
        let baseline = liveObservances
        weak var weakPerson: Person?
        var expected: [HandlerCall] = []
        let misuses = recordingMisuse {
            do {
                let person = Person()
                weakPerson = person
                XCTAssertEqual(
                    controller.observe(person, keyPath: "age", options: [.initial, .new], handler: log.recording("h")),
                    .registered)
                person.age = 1
                expected = [
                    expectedCall("h", observer: observer, object: person, keyPath: "age", new: 0),
                    expectedCall("h", observer: observer, object: person, keyPath: "age", new: 1),
                ]
                XCTAssertEqual(controller.registrationCount, 1)
            }
        }
        XCTAssertNil(weakPerson)
        XCTAssertEqual(misuses, [])
        XCTAssertEqual(controller.registrationCount, 0)
        XCTAssertEqual(liveObservances, baseline)
        XCTAssertEqual(log.all, expected)
        XCTAssertEqual(sink.records, [])
        assertNoMisuse { controller.unobserveAll() }
        XCTAssertEqual(sink.records, [])
    }

    func testWeakControllerLetsAnObservedObjectDeinitializeCleanly() {
        // FBKVOController issue #140: an object observed without retention deallocates while observed.
        let observer = GuardTestObserver()
        let (sink, controller) = makeController(for: observer, retainsObservedObjects: false)
        XCTAssertFalse(controller.retainsObservedObjects)
        let survivor = Person()
        let log = HandlerLog()
        let baseline = liveObservances
        weak var weakPerson: Person?
        let misuses = recordingMisuse {
            controller.observe(survivor, keyPath: "age", options: .new, handler: log.recording("survivor"))
            do {
                let person = Person()
                weakPerson = person
                controller.observe(
                    person, keyPaths: ["age", "name", "fullName", "wallet.balance"], options: .new,
                    handler: log.recording("doomed"))
                person.age = 1
                XCTAssertEqual(controller.registrationCount, 5)
                XCTAssertEqual(liveObservances, baseline + 6, "five registrations and the dotted path's forwarder")
            }
            XCTAssertNil(weakPerson, "a weak controller does not keep the object alive")
            XCTAssertEqual(controller.registrationCount, 1, "the dead object's registrations were dropped")
            survivor.age = 2
        }
        XCTAssertEqual(misuses, [], "no deallocatedWhileObserved, no notRegistered")
        XCTAssertEqual(RuntimeMonitor.liveObservanceCount, baseline + 1)
        XCTAssertEqual(
            log.all.map(\.tag), ["doomed", "survivor"], "one change of the doomed object, then one of the survivor")
        XCTAssertEqual(
            log.all.last, expectedCall("survivor", observer: observer, object: survivor, keyPath: "age", new: 2))
        XCTAssertEqual(sink.records, [], "an object going away is not a mistake")
        assertNoMisuse {
            controller.unobserveAll()
        }
        XCTAssertEqual(controller.registrationCount, 0)
        XCTAssertEqual(liveObservances, baseline)
        XCTAssertEqual(sink.records, [])
    }

    func testWeakControllerObjectGoneThenANewObjectIsAFreshRegistration() {
        let observer = GuardTestObserver()
        let (sink, controller) = makeController(for: observer, retainsObservedObjects: false)
        let log = HandlerLog()
        assertNoMisuse {
            for round in 0..<50 {
                // A new object may reuse the old one's address: it must never count as a duplicate or a double removal.
                let person = Person()
                XCTAssertEqual(
                    controller.observe(person, keyPath: "age", options: .new, handler: log.recording("r")), .registered,
                    "round \(round)")
                person.age = round
                if round.isMultiple(of: 2) {
                    XCTAssertEqual(controller.unobserve(person, keyPath: "age"), .removed)
                }
            }
        }
        XCTAssertEqual(log.count, 50)
        XCTAssertEqual(log.all.map(\.new), (0..<50).map { GuardValue.value(AnyHashable($0)) })
        XCTAssertEqual(controller.registrationCount, 0)
        XCTAssertEqual(sink.records, [])
    }

    func testWeakControllerReleasedBeforeItsObjects() {
        let observer = GuardTestObserver()
        let sink = CountingSink()
        let person = Person()
        let baseline = liveObservances
        weak var weakController: ObservationController<GuardTestObserver>?
        assertNoMisuse {
            do {
                let controller = ObservationController(
                    observer: observer, retainsObservedObjects: false, diagnosticSink: sink)
                weakController = controller
                controller.observe(person, keyPaths: ["age", "wallet.balance"]) { _, _, _ in
                    XCTFail("no change expected")
                }
            }
            person.age = 1
            person.wallet.balance = 1
        }
        XCTAssertNil(weakController)
        XCTAssertEqual(person.observationCount, 0)
        XCTAssertEqual(person.wallet.observationCount, 0)
        XCTAssertEqual(liveObservances, baseline)
        XCTAssertEqual(sink.records, [])
    }

    // MARK: An object observing itself

    func testSelfObservationWithAWeakControllerEndsWhenTheObjectIsReleased() {
        let baseline = liveObservances
        let sink = CountingSink()
        weak var weakModel: SelfObservingModel?
        weak var weakController: ObservationController<SelfObservingModel>?
        var expected: [HandlerCall] = []
        let log: HandlerLog
        var recorded: [KVOMisuse] = []
        do {
            let model = SelfObservingModel()
            log = model.log
            weakModel = model
            recorded = recordingMisuse {
                // Retaining its observed objects would make a cycle model → controller → model.
                let controller = ObservationController(
                    observer: model, retainsObservedObjects: false, diagnosticSink: sink)
                model.controller = controller
                weakController = controller
                let result = controller.observe(model, keyPath: "value", options: [.initial, .old, .new]) {
                    observer, object, change in
                    observer.log.record("self", observer, object, change)
                }
                XCTAssertEqual(result, .registered)
                model.value = 1
                expected = [
                    expectedCall("self", observer: model, object: model, keyPath: "value", new: 0),
                    expectedCall("self", observer: model, object: model, keyPath: "value", old: 0, new: 1),
                ]
                XCTAssertEqual(liveObservances, baseline + 1)
            }
        }
        XCTAssertEqual(recorded, [], "no misuse while observing or while the model went away")
        XCTAssertNil(weakModel)
        XCTAssertNil(weakController)
        XCTAssertEqual(log.all, expected)
        XCTAssertEqual(liveObservances, baseline)
        XCTAssertEqual(sink.records, [])
    }

    func testSelfObservationWithTheDefaultControllerIsACycleUntilUnobserved() {
        let baseline = liveObservances
        let sink = CountingSink()
        weak var weakModel: SelfObservingModel?
        var recorded: [KVOMisuse] = []
        do {
            let model = SelfObservingModel()
            weakModel = model
            recorded = recordingMisuse {
                let controller = ObservationController(observer: model, diagnosticSink: sink)
                model.controller = controller
                controller.observe(model, keyPath: "label", options: .new) { observer, object, change in
                    observer.log.record("self", observer, object, change)
                }
                model.label = "a"
            }
        }
        XCTAssertEqual(recorded, [])
        // Like FBKVOController's retaining controller: the model holds the controller, which holds the model.
        XCTAssertNotNil(weakModel, "a retaining controller owned by its observed object keeps it alive")
        let log = weakModel?.log
        recorded = recordingMisuse {
            weakModel?.controller?.unobserveAll()
        }
        XCTAssertEqual(recorded, [])
        XCTAssertNil(weakModel, "breaking the cycle releases the model")
        if let log {
            XCTAssertEqual(log.all.map(\.new), ["a"])
            XCTAssertEqual(log.all.map(\.keyPath), ["label"])
            XCTAssertEqual(log.all.map { $0.observer == $0.object }, [true])
        } else {
            XCTFail("the log was not captured")
        }
        XCTAssertEqual(liveObservances, baseline)
        XCTAssertEqual(sink.records, [])
    }
}
