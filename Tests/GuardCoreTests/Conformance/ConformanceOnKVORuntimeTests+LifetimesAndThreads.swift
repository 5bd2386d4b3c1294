import Foundation
import GuardCore
import XCTest

/// The conformance suite, continued: who keeps whom alive (controller, observer, observed object), and many
/// queues observing, unobserving, mutating and tearing down at once.
extension ConformanceOnKVORuntimeTests {
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
