import Foundation
import GuardCore
import XCTest

/// The guard's behavioural contract, one body of tests run against every backend.
///
/// This class runs it on GuardCore's runtime; each subclass runs it again on another backend by overriding
/// ``fixture`` (``ConformanceOnSimulatedFoundationTests`` everywhere, ``ConformanceOnNSObjectTests`` on Apple
/// platforms), so a test's backend is in its name: `ConformanceOnNSObjectTests.testDuplicateIsANoOp...`. (The
/// runtime suite is the base class rather than a sibling because XCTest on Linux only discovers inherited tests in
/// a subclass that declares a test of its own, and cannot hide an abstract base class.)
///
/// The tests are spread over this file and its extensions, one topic each (`+Initial`, `+ChangeContent`,
/// `+LifetimesAndThreads`); a subclass inherits every one of them (`swift test list` shows each test once per class).
///
/// Everything goes through `observe(object:keyPath:...)`, the entry point every backend shares, and every test checks
/// that no misuse reached the implementation underneath (where an app would crash).
class ConformanceOnKVORuntimeTests: XCTestCase {
    /// The backend this suite runs on.
    class var fixture: any BackendFixture { RuntimeFixture() }

    var fixture: any BackendFixture { Self.fixture }

    // MARK: Helpers

    func makeController<Observer: AnyObject>(
        for observer: Observer, retainsObservedObjects: Bool = true
    ) -> (CountingSink, ObservationController<Observer>) {
        let sink = CountingSink()
        let controller = ObservationController(
            observer: observer, retainsObservedObjects: retainsObservedObjects, backend: fixture.makeBackend(),
            diagnosticSink: sink)
        return (sink, controller)
    }

    func makeOwnedController(retainsObservedObjects: Bool = true) -> (
        ConformanceObserver, CountingSink, ObservationController<ConformanceObserver>
    ) {
        let observer = ConformanceObserver()
        let (sink, controller) = makeController(for: observer, retainsObservedObjects: retainsObservedObjects)
        observer.controller = controller
        return (observer, sink, controller)
    }

    /// A controller whose only strong reference is its observer's; the test sees it through a weak reference.
    func makeControllerOwnedOnlyByItsObserver() -> (
        ConformanceObserver, CountingSink, ConformanceWeak<ObservationController<ConformanceObserver>>
    ) {
        let (observer, sink, controller) = makeOwnedController()
        return (observer, sink, ConformanceWeak(controller))
    }

    func recording<Observer: AnyObject>(
        _ log: ConformanceLog
    ) -> @Sendable (Observer, AnyObject, KeyValueChange) -> Void {
        { _, object, change in log.record(object, change) }
    }

    func assertNoMisuse(file: StaticString = #filePath, line: UInt = #line, _ body: () -> Void) {
        let misuses = fixture.recordingMisuse(body)
        XCTAssertEqual(
            misuses.count, 0, "misuse reached \(fixture.name): \(misuses.prefix(3))\(misuses.count > 3 ? " ..." : "")",
            file: file, line: line)
    }

    func registrations(on model: any ConformanceModel) -> Int {
        fixture.implementationRegistrationCount(on: model)
    }

    // MARK: Registration and delivery

    func testObserveRegistersOnceAndDeliversEachChangeOnce() {
        let observer = ConformanceObserver()
        let (sink, controller) = makeController(for: observer)
        let model = fixture.makeModel()
        let log = ConformanceLog()
        assertNoMisuse {
            XCTAssertEqual(
                controller.observe(object: model, keyPath: "age", options: .new, handler: recording(log)), .registered)
            XCTAssertEqual(registrations(on: model), 1)
            model.age = 1
            model.age = 2
        }
        XCTAssertEqual(log.all, [.init(keyPath: "age", new: .int(1)), .init(keyPath: "age", new: .int(2))])
        XCTAssertEqual(log.objectIDs, [ObjectIdentifier(model), ObjectIdentifier(model)])
        XCTAssertEqual(controller.registrationCount, 1)
        XCTAssertTrue(controller.isObserving(model, keyPath: "age"))
        XCTAssertEqual(sink.total, 0)
    }

    func testDuplicateIsANoOpThatKeepsTheFirstRegistration() {
        let observer = ConformanceObserver()
        let (sink, controller) = makeController(for: observer)
        let model = fixture.makeModel()
        let first = ConformanceLog()
        let second = ConformanceLog()
        assertNoMisuse {
            controller.observe(object: model, keyPath: "name", options: .new, handler: recording(first))
            let duplicate = controller.observe(
                object: model, keyPath: "name", options: [.initial, .old, .prior], handler: recording(second))
            XCTAssertEqual(duplicate, .duplicate)
            model.name = "Ada"
        }
        XCTAssertEqual(first.all, [.init(keyPath: "name", new: .string("Ada"))])
        XCTAssertEqual(second.count, 0)
        XCTAssertEqual(registrations(on: model), 1)
        XCTAssertEqual(sink.events.map(\.kind), [.duplicateObservation])
        XCTAssertEqual(sink.events.first?.keyPath, "name")
    }

    func testSameKeyPathOnTwoObjectsIsTwoRegistrations() {
        let observer = ConformanceObserver()
        let (sink, controller) = makeController(for: observer)
        let first = fixture.makeModel()
        let second = fixture.makeModel()
        let log = ConformanceLog()
        assertNoMisuse {
            XCTAssertEqual(controller.observe(object: first, keyPath: "age", options: .new, handler: recording(log)), .registered)
            XCTAssertEqual(controller.observe(object: second, keyPath: "age", options: .new, handler: recording(log)), .registered)
            first.age = 1
            second.age = 2
            XCTAssertEqual(controller.unobserve(first, keyPath: "age"), .removed)
            first.age = 3
            second.age = 4
        }
        XCTAssertEqual(log.all.map(\.new), [.int(1), .int(2), .int(4)])
        XCTAssertEqual(log.objectIDs, [first, second, second].map { ObjectIdentifier($0) })
        XCTAssertEqual(sink.total, 0)
    }

    // MARK: Removal

    func testNoChangeMadeAfterUnobserveReturnedIsDelivered() {
        let observer = ConformanceObserver()
        let (sink, controller) = makeController(for: observer)
        let model = fixture.makeModel()
        let log = ConformanceLog()
        assertNoMisuse {
            controller.observe(object: model, keyPath: "age", options: .new, handler: recording(log))
            model.age = 1
            XCTAssertEqual(controller.unobserve(model, keyPath: "age"), .removed)
            model.age = 2
            let other = DispatchQueue(label: "conformance.after-unobserve")
            other.sync { model.age = 3 }
        }
        XCTAssertEqual(log.all, [.init(keyPath: "age", new: .int(1))])
        XCTAssertEqual(registrations(on: model), 0)
        XCTAssertEqual(controller.registrationCount, 0)
        XCTAssertEqual(sink.total, 0)
    }

    func testDoubleRemovalAndRemovalOfTheUnregisteredAreToldApart() {
        let observer = ConformanceObserver()
        let (sink, controller) = makeController(for: observer)
        let model = fixture.makeModel()
        assertNoMisuse {
            controller.observe(object: model, keyPath: "age") { _, _, _ in }
            XCTAssertEqual(controller.unobserve(model, keyPath: "age"), .removed)
            XCTAssertEqual(controller.unobserve(model, keyPath: "age"), .alreadyRemoved)
            XCTAssertEqual(controller.unobserve(model, keyPath: "name"), .notRegistered)
            XCTAssertEqual(controller.unobserve(fixture.makeModel(), keyPath: "age"), .notRegistered)
        }
        XCTAssertEqual(sink.events.map(\.kind), [.doubleRemoval, .removalOfUnregistered, .removalOfUnregistered])
        XCTAssertEqual(sink.events.map(\.keyPath), ["age", "name", "age"])
        XCTAssertEqual(registrations(on: model), 0)
    }

    func testUnobserveObjectRemovesEveryKeyPathOfThatObjectOnly() {
        let observer = ConformanceObserver()
        let (sink, controller) = makeController(for: observer)
        let model = fixture.makeModel()
        let other = fixture.makeModel()
        let log = ConformanceLog()
        assertNoMisuse {
            controller.observe(object: model, keyPath: "age", options: .new, handler: recording(log))
            controller.observe(object: model, keyPath: "name", options: .new, handler: recording(log))
            controller.observe(object: other, keyPath: "age", options: .new, handler: recording(log))
            XCTAssertEqual(controller.observedKeyPaths(of: model), ["age", "name"])
            XCTAssertEqual(controller.unobserve(model), .removed)
            XCTAssertEqual(controller.unobserve(model), .alreadyRemoved)
            model.age = 1
            model.name = "gone"
            other.age = 2
        }
        XCTAssertEqual(log.all, [.init(keyPath: "age", new: .int(2))])
        XCTAssertEqual(registrations(on: model), 0)
        XCTAssertEqual(registrations(on: other), 1)
        XCTAssertEqual(sink.events.map(\.kind), [.doubleRemoval])
    }

    func testUnobserveAllRemovesEverythingWithoutDiagnostics() {
        let observer = ConformanceObserver()
        let (sink, controller) = makeController(for: observer)
        let models = (0..<3).map { _ in fixture.makeModel() }
        let log = ConformanceLog()
        assertNoMisuse {
            for model in models {
                controller.observe(object: model, keyPaths: ["age", "name"], options: .new, handler: recording(log))
            }
            XCTAssertEqual(controller.registrationCount, 6)
            controller.unobserveAll()
            controller.unobserveAll()
            for model in models { model.age = 9 }
        }
        XCTAssertEqual(log.count, 0)
        XCTAssertEqual(models.map { registrations(on: $0) }, [0, 0, 0])
        XCTAssertEqual(sink.total, 0)
    }

    // MARK: Invalid arguments

    func testAKeyThatCannotBeObservedIsInvalidAndNeverReachesTheImplementation() {
        let observer = ConformanceObserver()
        let (sink, controller) = makeController(for: observer)
        let model = fixture.makeModel()
        assertNoMisuse {
            XCTAssertEqual(
                controller.observe(object: model, keyPath: "noSuchKey", options: [.initial, .new]) { _, _, _ in
                    XCTFail("handler of an invalid registration ran")
                }, .invalid(.unobservableKeyPath))
            XCTAssertEqual(controller.observe(object: model, keyPath: "", handler: { _, _, _ in }), .invalid(.emptyKeyPath))
            XCTAssertEqual(controller.observe(object: nil, keyPath: "age", handler: { _, _, _ in }), .invalid(.nilObject))
            XCTAssertEqual(controller.observe(object: NSObject(), keyPath: "age", handler: { _, _, _ in }), .invalid(.unobservableKeyPath))
        }
        XCTAssertEqual(registrations(on: model), 0)
        XCTAssertEqual(controller.registrationCount, 0)
        XCTAssertEqual(sink.events.map(\.invalidArgument), [.unobservableKeyPath, .emptyKeyPath, .nilObject, .unobservableKeyPath])
    }

    /// Foundation's arrays cannot be observed: observing `items.count` or `items.@count` makes `NSArray` raise
    /// "[<__NSArrayM 0x…> addObserver:forKeyPath:options:context:] is not supported. Key path: count" at
    /// `addObserver`. Every backend refuses such a key path up front as invalid, before anything reaches Foundation.
    func testAKeyPathThroughACollectionIsInvalidAndNeverReachesTheImplementation() {
        let observer = ConformanceObserver()
        let (sink, controller) = makeController(for: observer)
        let model = fixture.makeModel()
        model.insertItem("a", at: 0)
        assertNoMisuse {
            for keyPath in ["items.count", "items.@count", "items.@sum.self"] {
                XCTAssertEqual(
                    controller.observe(object: model, keyPath: keyPath, options: [.initial, .new]) { _, _, _ in
                        XCTFail("handler of an invalid registration ran")
                    }, .invalid(.unobservableKeyPath), keyPath)
            }
            model.insertItem("b", at: 1)
        }
        XCTAssertEqual(registrations(on: model), 0)
        XCTAssertEqual(controller.registrationCount, 0)
        XCTAssertEqual(sink.events.map(\.invalidArgument), Array(repeating: .unobservableKeyPath, count: 3))
    }
}
