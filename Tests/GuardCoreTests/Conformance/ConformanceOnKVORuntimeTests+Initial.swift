import Foundation
import GuardCore
import XCTest

/// The conformance suite, continued: `.initial` deliveries, and handlers that observe, unobserve or release their
/// controller while it delivers.
extension ConformanceOnKVORuntimeTests {
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
}
