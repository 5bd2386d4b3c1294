import Foundation
import GuardCore
import XCTest

final class GuardSmokeTests: XCTestCase {
    final class Owner: @unchecked Sendable {
        var controller: ObservationController<Owner>?
        let lock = NSLock()
        var seen: [KeyValueChange] = []
    }

    func testInitialThenUnobserveInsideHandlerIsClean() {
        let owner = Owner()
        let sink = CountingSink()
        let controller = ObservationController(observer: owner, diagnosticSink: sink)
        owner.controller = controller
        let person = Person()
        assertNoMisuse {
            let result = controller.observe(person, keyPath: "age", options: [.initial, .new]) { owner, person, change in
                owner.lock.withLock { owner.seen.append(change) }
                owner.controller?.unobserve(person, keyPath: "age")
            }
            XCTAssertEqual(result, .registered)
            person.age = 3
        }
        XCTAssertEqual(owner.seen.count, 1)
        XCTAssertEqual(owner.seen.first?.newValue(as: Int.self), 0)
        XCTAssertEqual(controller.registrationCount, 0)
        XCTAssertEqual(person.observationCount, 0)
        XCTAssertEqual(sink.total, 0)
        XCTAssertEqual(controller.unobserve(person, keyPath: "age"), .alreadyRemoved)
        XCTAssertEqual(sink.count(of: .doubleRemoval), 1)
        XCTAssertEqual(controller.unobserve(person, keyPath: "name"), .notRegistered)
        XCTAssertEqual(sink.count(of: .removalOfUnregistered), 1)
    }
}
