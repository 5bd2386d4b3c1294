import GuardCore
import XCTest

/// A bulk removal (`unobserve(object)`, `unobserveAll()`, releasing the controller) releases the registrations it took
/// out one by one in the order they were made, so the deinits those releases set off (of what the handlers captured)
/// run in an order that does not depend on object addresses: a replayed run takes the same steps.
final class GuardBulkRemovalOrderTests: XCTestCase {
    /// Captured by one handler only: its deinit logs which registration released it.
    private final class ReleaseProbe: @unchecked Sendable {
        let index: Int
        let log: LockedBox<[Int]>

        init(_ index: Int, log: LockedBox<[Int]>) {
            self.index = index
            self.log = log
        }

        deinit { log.mutate { $0.append(index) } }
    }

    private static let keys = ["age", "name", "score", "firstName"]

    /// Registers every key of every person, in an order that jumps between objects (so neither object addresses nor
    /// the controller's table order matches it); handler number `index` captures probe number `index`. Returns the
    /// (person, key) pairs in registration order.
    private func registerShuffled(
        _ people: [Person], on controller: ObservationController<GuardTestObserver>, log: LockedBox<[Int]>
    ) -> [(person: Person, key: String)] {
        var pairs = people.flatMap { person in Self.keys.map { (person: person, key: $0) } }
        var random = SplitMix64(state: 0x5eed)
        for index in pairs.indices.reversed() { pairs.swapAt(index, random.below(index + 1)) }
        for (index, pair) in pairs.enumerated() {
            let probe = ReleaseProbe(index, log: log)
            let result = controller.observe(pair.person, keyPath: pair.key, options: .new) { _, _, _ in
                withExtendedLifetime(probe) {}
            }
            XCTAssertEqual(result, .registered)
        }
        return pairs
    }

    func testUnobserveAllAndReleasingTheControllerReleaseInRegistrationOrder() {
        for retainsObjects in [true, false] {
            for releasesController in [false, true] {
                let observer = GuardTestObserver()
                let people = (0..<24).map { _ in Person() }
                let log = LockedBox<[Int]>([])
                var controller: ObservationController<GuardTestObserver>? = ObservationController(
                    observer: observer, retainsObservedObjects: retainsObjects, diagnosticSink: CountingSink())
                let pairs = registerShuffled(people, on: controller!, log: log)
                XCTAssertEqual(log.value, [], "nothing released while registered")
                if releasesController {
                    controller = nil
                } else {
                    XCTAssertEqual(controller?.unobserveAll(), pairs.count)
                }
                let context = "retainsObjects: \(retainsObjects), releasesController: \(releasesController)"
                XCTAssertEqual(log.value, Array(pairs.indices), context)
                XCTAssertEqual(people.map(\.observationCount), Array(repeating: 0, count: people.count), context)
                if let controller {
                    XCTAssertEqual(controller.registrationCount, 0)
                    // Every removal was remembered: removing any again is a double removal.
                    XCTAssertEqual(controller.unobserve(people[3], keyPath: "age"), .alreadyRemoved, context)
                }
            }
        }
    }

    func testUnobservingAnObjectReleasesItsRegistrationsInRegistrationOrder() {
        for retainsObjects in [true, false] {
            let observer = GuardTestObserver()
            let people = (0..<8).map { _ in Person() }
            let log = LockedBox<[Int]>([])
            let controller = ObservationController(
                observer: observer, retainsObservedObjects: retainsObjects, diagnosticSink: CountingSink())
            let pairs = registerShuffled(people, on: controller, log: log)
            let target = people[5]
            XCTAssertEqual(controller.unobserve(target), .removed)
            let expected = pairs.indices.filter { pairs[$0].person === target }
            XCTAssertEqual(log.value, expected, "retainsObjects: \(retainsObjects)")
            XCTAssertEqual(target.observationCount, 0)
            XCTAssertEqual(controller.registrationCount, pairs.count - Self.keys.count)
            XCTAssertEqual(controller.unobserve(target, keyPath: "score"), .alreadyRemoved)
            XCTAssertEqual(controller.unobserveAll(), pairs.count - Self.keys.count)
        }
    }
}
