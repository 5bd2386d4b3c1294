import XCTest

@testable import GuardCore

/// A controller made to own its observer (a token's private one) holds it strongly: handlers get it though nothing
/// else holds it, and it goes when the controller does. A controller made the public way holds its observer weakly.
final class GuardOwnedObserverTests: XCTestCase {
    private final class Witness: @unchecked Sendable {
        let seen = LockedBox<[Int]>([])
    }

    func testAnOwnedObserverLivesAsLongAsTheControllerAndGoesWithIt() {
        let person = Person()
        weak var watched: Witness?
        var controller: ObservationController<Witness>?
        do {
            let observer = Witness()
            watched = observer
            controller = ObservationController(
                owning: observer, retainsObservedObjects: true, backend: AutomaticBackend())
        }
        XCTAssertNotNil(watched, "the controller holds its owned observer")
        XCTAssertNotNil(controller?.observer)
        let result = controller?.observe(person, keyPath: "age", options: .new) { observer, _, change in
            observer.seen.mutate { $0.append(change.newValue(as: Int.self) ?? -1) }
        }
        XCTAssertEqual(result, .registered)
        person.age = 7
        XCTAssertEqual(watched?.seen.value, [7], "the handler got the owned observer")
        controller = nil
        XCTAssertNil(watched, "released with the controller")
        XCTAssertEqual(person.observationCount, 0)
    }

    func testAControllerMadeThePublicWayHoldsItsObserverWeakly() {
        let person = Person()
        let sink = CountingSink()
        weak var watched: Witness?
        let controller: ObservationController<Witness>
        do {
            let observer = Witness()
            watched = observer
            controller = ObservationController(observer: observer, diagnosticSink: sink)
        }
        XCTAssertNil(watched, "nothing but the caller held it")
        XCTAssertNil(controller.observer)
        XCTAssertEqual(
            controller.observe(person, keyPath: "age", options: .new) { _, _, _ in }, .invalid(.observerDeallocated))
        XCTAssertEqual(person.observationCount, 0)
    }
}
