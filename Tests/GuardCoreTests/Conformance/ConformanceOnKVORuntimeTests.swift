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
/// Everything goes through `observe(object:keyPath:...)`, the entry point every backend shares, and every test checks
/// that no misuse reached the implementation underneath (where an app would crash).
class ConformanceOnKVORuntimeTests: XCTestCase {
    /// The backend this suite runs on.
    class var fixture: any BackendFixture { RuntimeFixture() }

    var fixture: any BackendFixture { Self.fixture }

    // MARK: Helpers

    private func makeController<Observer: AnyObject>(
        for observer: Observer, retainsObservedObjects: Bool = true
    ) -> (CountingSink, ObservationController<Observer>) {
        let sink = CountingSink()
        let controller = ObservationController(
            observer: observer, retainsObservedObjects: retainsObservedObjects, backend: fixture.makeBackend(),
            diagnosticSink: sink)
        return (sink, controller)
    }

    private func makeOwnedController(retainsObservedObjects: Bool = true) -> (
        ConformanceObserver, CountingSink, ObservationController<ConformanceObserver>
    ) {
        let observer = ConformanceObserver()
        let (sink, controller) = makeController(for: observer, retainsObservedObjects: retainsObservedObjects)
        observer.controller = controller
        return (observer, sink, controller)
    }

    /// A controller whose only strong reference is its observer's; the test sees it through a weak reference.
    private func makeControllerOwnedOnlyByItsObserver() -> (
        ConformanceObserver, CountingSink, ConformanceWeak<ObservationController<ConformanceObserver>>
    ) {
        let (observer, sink, controller) = makeOwnedController()
        return (observer, sink, ConformanceWeak(controller))
    }

    private func recording<Observer: AnyObject>(
        _ log: ConformanceLog
    ) -> @Sendable (Observer, AnyObject, KeyValueChange) -> Void {
        { _, object, change in log.record(object, change) }
    }

    private func assertNoMisuse(file: StaticString = #filePath, line: UInt = #line, _ body: () -> Void) {
        let misuses = fixture.recordingMisuse(body)
        XCTAssertEqual(
            misuses.count, 0, "misuse reached \(fixture.name): \(misuses.prefix(3))\(misuses.count > 3 ? " ..." : "")",
            file: file, line: line)
    }

    private func registrations(on model: any ConformanceModel) -> Int {
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

    // MARK: .initial

    func testInitialIsDeliveredOnceBeforeObserveReturnsOnTheCallingThread() {
        let observer = ConformanceObserver()
        let (sink, controller) = makeController(for: observer)
        let model = fixture.makeModel()
        model.age = 41
        let log = ConformanceLog()
        assertNoMisuse {
            let result = controller.observe(object: model, keyPath: "age", options: [.initial, .new, .old], handler: recording(log))
            XCTAssertEqual(result, .registered)
            XCTAssertEqual(log.all, [.init(keyPath: "age", new: .int(41))], "delivered before observe returned, never with an old value")
            model.age = 42
        }
        XCTAssertEqual(log.all.last, .init(keyPath: "age", old: .int(41), new: .int(42)))
        XCTAssertEqual(log.count, 2)
        XCTAssertTrue(log.threads.first === Thread.current)
        XCTAssertEqual(sink.total, 0)
    }

    func testUnobserveInsideTheInitialHandlerIsACleanRemoval() {
        let (observer, sink, controller) = makeOwnedController()
        let model = fixture.makeModel()
        let log = ConformanceLog()
        let inner = ConformanceValueBox<UnobserveResult>()
        assertNoMisuse {
            let result = controller.observe(object: model, keyPath: "age", options: [.initial, .new]) { observer, object, change in
                log.record(object, change)
                inner.set(observer.controller?.unobserve(object, keyPath: "age"))
            }
            XCTAssertEqual(result, .registered)
            model.age = 5
        }
        XCTAssertEqual(inner.value, .removed)
        XCTAssertEqual(log.all, [.init(keyPath: "age", new: .int(0))], "no notification after the removal")
        XCTAssertEqual(controller.registrationCount, 0)
        XCTAssertEqual(registrations(on: model), 0)
        XCTAssertEqual(controller.unobserve(model, keyPath: "age"), .alreadyRemoved)
        XCTAssertEqual(sink.events.map(\.kind), [.doubleRemoval])
        observer.controller = nil
    }

    func testUnobserveAllInsideTheInitialHandlerIsACleanRemoval() {
        let (observer, sink, controller) = makeOwnedController()
        let model = fixture.makeModel()
        let log = ConformanceLog()
        assertNoMisuse {
            controller.observe(object: model, keyPath: "name", options: [.initial, .new]) { observer, object, change in
                log.record(object, change)
                observer.controller?.unobserveAll()
            }
            model.name = "later"
        }
        XCTAssertEqual(log.count, 1)
        XCTAssertEqual(registrations(on: model), 0)
        XCTAssertEqual(sink.total, 0)
        observer.controller = nil
    }

    func testReleasingTheControllerInsideTheInitialHandlerIsACleanRemoval() {
        let (observer, sink, released) = makeControllerOwnedOnlyByItsObserver()
        let model = fixture.makeModel()
        let log = ConformanceLog()
        assertNoMisuse {
            released.object?.observe(object: model, keyPath: "name", options: [.initial, .new]) { observer, object, change in
                log.record(object, change)
                observer.controller = nil
            }
            model.name = "later"
        }
        XCTAssertNil(released.object, "the handler dropped the controller's last reference")
        XCTAssertNil(observer.controller)
        XCTAssertEqual(log.count, 1)
        XCTAssertEqual(registrations(on: model), 0, "the registration left with the controller")
        XCTAssertEqual(sink.total, 0)
    }

    // MARK: Change content

    func testPriorOldAndNewValues() {
        let observer = ConformanceObserver()
        let (_, controller) = makeController(for: observer)
        let model = fixture.makeModel()
        model.name = "a"
        let log = ConformanceLog()
        assertNoMisuse {
            controller.observe(object: model, keyPath: "name", options: [.old, .new, .prior], handler: recording(log))
            model.name = "b"
        }
        XCTAssertEqual(
            log.all,
            [
                .init(keyPath: "name", old: .string("a"), isPrior: true),
                .init(keyPath: "name", old: .string("a"), new: .string("b")),
            ])
    }

    func testANilValueIsPresentButNil() {
        let observer = ConformanceObserver()
        let (_, controller) = makeController(for: observer)
        let model = fixture.makeModel()
        let log = ConformanceLog()
        assertNoMisuse {
            controller.observe(object: model, keyPath: "nickname", options: [.initial, .old, .new], handler: recording(log))
            model.nickname = "Al"
            model.nickname = nil
        }
        XCTAssertEqual(
            log.all,
            [
                .init(keyPath: "nickname", new: .nilValue),
                .init(keyPath: "nickname", old: .nilValue, new: .string("Al")),
                .init(keyPath: "nickname", old: .string("Al"), new: .nilValue),
            ])
    }

    func testAnOrderedToManyInsertionCarriesItsKindAndIndexes() {
        let observer = ConformanceObserver()
        let (_, controller) = makeController(for: observer)
        let model = fixture.makeModel()
        let log = ConformanceLog()
        assertNoMisuse {
            controller.observe(object: model, keyPath: "items", options: [.new], handler: recording(log))
            model.insertItem("a", at: 0)
            model.insertItem("b", at: 0)
        }
        XCTAssertEqual(
            log.all,
            [
                .init(keyPath: "items", kind: .insertion, new: .strings(["a"]), indexes: [0]),
                .init(keyPath: "items", kind: .insertion, new: .strings(["b"]), indexes: [0]),
            ])
    }

    /// Foundation sends a change's prior notifications to the observers of a key oldest registration first and its
    /// change notifications newest first (it pops the pending notifications its prior pass pushed), so each
    /// observer's pair nests inside the pairs of those registered before it; the guard's handlers, one backend
    /// registration each, follow the backend.
    func testPriorsGoOldestFirstAndChangesNewestFirstAcrossControllers() {
        let observers = (0..<3).map { _ in ConformanceObserver() }
        let controllers = observers.map { makeController(for: $0).1 }
        let model = fixture.makeModel()
        let order = ConformanceValueBox<[String]>()
        assertNoMisuse {
            for (index, controller) in controllers.enumerated() {
                controller.observe(object: model, keyPath: "age", options: [.prior, .new]) { _, _, change in
                    order.mutate { $0 = ($0 ?? []) + ["\(change.isPrior ? "will" : "did") \(index)"] }
                }
            }
            model.age = 4
            for controller in controllers { controller.unobserveAll() }
        }
        XCTAssertEqual(order.value, ["will 0", "will 1", "will 2", "did 2", "did 1", "did 0"])
        XCTAssertEqual(registrations(on: model), 0)
    }

    /// Foundation's set mutations (`-willChangeValueForKey:withSetMutation:usingObjects:`, `NSKeyValueObserving.h`):
    /// union → insertion with the objects added as `new`, minus and intersect → removal with the objects removed as
    /// `old`, set → replacement with both; no indexes, and the prior notification carries `old` too.
    func testUnorderedToManyMutationsCarryFoundationsKindsAndSets() {
        let observer = ConformanceObserver()
        let (_, controller) = makeController(for: observer)
        let model = fixture.makeModel()
        let log = ConformanceLog()
        assertNoMisuse {
            controller.observe(object: model, keyPath: "tags", options: [.old, .new, .prior], handler: recording(log))
            model.mutateTags(.union, ["1", "2", "3"])
            model.mutateTags(.minus, ["1", "9"])
            model.mutateTags(.intersect, ["2"])
            model.mutateTags(.set, ["2", "4"])
        }
        XCTAssertEqual(
            log.all,
            [
                .init(keyPath: "tags", kind: .insertion, isPrior: true),
                .init(keyPath: "tags", kind: .insertion, new: .set(["1", "2", "3"])),
                .init(keyPath: "tags", kind: .removal, old: .set(["1"]), isPrior: true),
                .init(keyPath: "tags", kind: .removal, old: .set(["1"])),
                .init(keyPath: "tags", kind: .removal, old: .set(["3"]), isPrior: true),
                .init(keyPath: "tags", kind: .removal, old: .set(["3"])),
                .init(keyPath: "tags", kind: .replacement, old: .set([]), isPrior: true),
                .init(keyPath: "tags", kind: .replacement, old: .set([]), new: .set(["4"])),
            ])
        XCTAssertEqual(model.tags, ["2", "4"])
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

    // MARK: Lifetimes

    func testReleasingTheControllerUnregistersEverything() {
        let model = fixture.makeModel()
        let observer = ConformanceObserver()
        let log = ConformanceLog()
        var sink: CountingSink?
        assertNoMisuse {
            let (controllerSink, controller) = makeController(for: observer)
            sink = controllerSink
            controller.observe(object: model, keyPaths: ["age", "name"], options: .new, handler: recording(log))
            XCTAssertEqual(registrations(on: model), 2)
        }
        XCTAssertEqual(registrations(on: model), 0)
        assertNoMisuse { model.age = 3 }
        XCTAssertEqual(log.count, 0)
        XCTAssertEqual(sink?.total, 0)
    }

    func testAStronglyHeldObjectStaysAliveUntilUnobserved() {
        let observer = ConformanceObserver()
        let (sink, controller) = makeController(for: observer)
        var model: (any ConformanceModel)? = fixture.makeModel()
        let weakModel = ConformanceWeak(model as AnyObject?)
        assertNoMisuse {
            drainingAutoreleasedObjects {
                controller.observe(object: model, keyPath: "age") { _, _, _ in }
                model = nil
            }
            XCTAssertNotNil(weakModel.object, "held by the controller")
            drainingAutoreleasedObjects {
                XCTAssertEqual(controller.unobserve(weakModel.object, keyPath: "age"), .removed)
            }
        }
        XCTAssertNil(weakModel.object, "released with its last registration")
        XCTAssertEqual(sink.total, 0)
    }

    func testAWeaklyHeldObjectThatDeinitializesDropsItsRegistrationsWithoutMisuse() {
        let observer = ConformanceObserver()
        let (sink, controller) = makeController(for: observer, retainsObservedObjects: false)
        var model: (any ConformanceModel)? = fixture.makeModel()
        let weakModel = ConformanceWeak(model as AnyObject?)
        let log = ConformanceLog()
        assertNoMisuse {
            drainingAutoreleasedObjects {
                controller.observe(object: model, keyPaths: ["age", "name"], options: .new, handler: recording(log))
                model?.age = 1
                XCTAssertEqual(controller.registrationCount, 2)
                model = nil
            }
        }
        XCTAssertNil(weakModel.object, "a weak controller does not keep the object")
        XCTAssertEqual(controller.registrationCount, 0)
        XCTAssertEqual(log.all, [.init(keyPath: "age", new: .int(1))])
        assertNoMisuse { controller.unobserveAll() }
        XCTAssertEqual(sink.total, 0)
    }

    func testNotificationsForAGoneObserverAreDroppedWithOneDiagnostic() {
        var observer: ConformanceObserver? = ConformanceObserver()
        let (sink, controller) = makeController(for: observer!)
        let model = fixture.makeModel()
        let log = ConformanceLog()
        assertNoMisuse {
            controller.observe(object: model, keyPath: "age", options: .new, handler: recording(log))
            observer = nil
            model.age = 1
            model.age = 2
        }
        XCTAssertEqual(log.count, 0)
        XCTAssertEqual(sink.events.map(\.kind), [.observerDeallocated])
        assertNoMisuse { controller.unobserveAll() }
        XCTAssertEqual(registrations(on: model), 0)
    }

    // MARK: Re-entrancy

    func testAHandlerMayObserveUnobserveMutateAndReleaseItsController() {
        let (observer, sink, released) = makeControllerOwnedOnlyByItsObserver()
        let model = fixture.makeModel()
        let log = ConformanceLog()
        assertNoMisuse {
            released.object?.observe(object: model, keyPath: "age", options: .new) { observer, object, change in
                log.record(object, change)
                guard let model = object as? any ConformanceModel, let controller = observer.controller else { return }
                switch model.age {
                case 1:
                    controller.observe(object: model, keyPath: "name", options: .new) { _, object, change in
                        log.record(object, change)
                    }
                    model.name = "nested"
                case 2:
                    controller.unobserve(model, keyPath: "name")
                    model.name = "unheard"
                case 3:
                    observer.controller = nil
                default:
                    break
                }
            }
            model.age = 1
            model.age = 2
            model.age = 3
            model.age = 4
        }
        XCTAssertEqual(
            log.all,
            [
                .init(keyPath: "age", new: .int(1)), .init(keyPath: "name", new: .string("nested")),
                .init(keyPath: "age", new: .int(2)), .init(keyPath: "age", new: .int(3)),
            ])
        XCTAssertEqual(registrations(on: model), 0)
        XCTAssertEqual(sink.total, 0)
        XCTAssertNil(observer.controller)
        XCTAssertNil(released.object)
    }

    // MARK: Threads

    func testConcurrentObserveUnobserveMutateAndTeardownFromManyQueues() {
        let queues = 16
        let models = (0..<4).map { _ in fixture.makeModel() }
        let modelLocks = models.map { _ in NSLock() }
        let observer = ConformanceObserver()
        let (sink, controller) = makeController(for: observer)
        let keys = ["age", "name"]
        let barrier = ConformanceBarrier(parties: queues)
        let group = DispatchGroup()
        let deliveredAfterEnd = ConformanceValueBox<Int>()
        let ended = ConformanceFlag()
        let handler: @Sendable (ConformanceObserver, AnyObject, KeyValueChange) -> Void = { _, _, _ in
            if ended.isSet { deliveredAfterEnd.increment() }
        }
        assertNoMisuse {
            for queueIndex in 0..<queues {
                DispatchQueue(label: "conformance.worker-\(queueIndex)").async(group: group) {
                    var random = SplitMixForTests(seed: UInt64(queueIndex + 1))
                    barrier.arriveAndWait()
                    for step in 0..<150 {
                        let m = Int(random.next() % UInt64(models.count))
                        let key = keys[Int(random.next() % 2)]
                        switch random.next() % 6 {
                        case 0: controller.observe(object: models[m], keyPath: key, options: [.new], handler: handler)
                        case 1: controller.observe(object: models[m], keyPath: key, options: [.initial, .new], handler: handler)
                        case 2: controller.unobserve(models[m], keyPath: key)
                        case 3: controller.unobserve(models[m])
                        case 4 where step % 50 == 0: controller.unobserveAll()
                        default:
                            modelLocks[m].withLock {
                                if key == "age" { models[m].age = step } else { models[m].name = "\(step)" }
                            }
                        }
                    }
                }
            }
            barrier.release()
            XCTAssertEqual(group.wait(timeout: .now() + 60), .success, "deadlock")
            controller.unobserveAll()
            ended.set()
            for (m, model) in models.enumerated() { modelLocks[m].withLock { model.age = -1 } }
        }
        XCTAssertEqual(deliveredAfterEnd.value ?? 0, 0)
        XCTAssertEqual(controller.registrationCount, 0)
        XCTAssertEqual(models.map { registrations(on: $0) }, [0, 0, 0, 0])
        XCTAssertEqual(
            Set(sink.counts.keys).subtracting([.duplicateObservation, .doubleRemoval, .removalOfUnregistered]), [])
    }
}

// MARK: - Small shared state for the tests above

/// A value set from any thread.
final class ConformanceValueBox<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: Value?

    func set(_ value: Value?) { lock.withLock { stored = value } }
    var value: Value? { lock.withLock { stored } }
    func mutate(_ body: (inout Value?) -> Void) { lock.withLock { body(&stored) } }
}

extension ConformanceValueBox where Value == Int {
    func increment() { mutate { $0 = ($0 ?? 0) + 1 } }
}

/// A flag set once from any thread.
final class ConformanceFlag: @unchecked Sendable {
    private let lock = NSLock()
    private var stored = false

    func set() { lock.withLock { stored = true } }
    var isSet: Bool { lock.withLock { stored } }
}

/// SplitMix64, so each worker's choices are reproducible.
struct SplitMixForTests {
    private var state: UInt64

    init(seed: UInt64) { state = seed }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
