import Foundation
import GuardCore
import XCTest

/// The ordering guarantee: a change made after `unobserve` (or `unobserve(object)`, `unobserveAll()`, or releasing
/// the controller) returned is never delivered to the removed registration, whichever thread makes it.
final class GuardOrderingTests: XCTestCase {
    private enum Removal: CaseIterable {
        case keyPath, object, all, controllerRelease
    }

    /// Ends the registration for `person`'s `age` the way `removal` says; a controller release sets `controller` to
    /// `nil`.
    private func remove(
        _ removal: Removal, _ person: Person, from controller: inout ObservationController<GuardTestObserver>?,
        file: StaticString = #filePath, line: UInt = #line
    ) {
        switch removal {
        case .keyPath: XCTAssertEqual(controller?.unobserve(person, keyPath: "age"), .removed, file: file, line: line)
        case .object: XCTAssertEqual(controller?.unobserve(person), .removed, file: file, line: line)
        case .all: controller?.unobserveAll()
        case .controllerRelease: controller = nil
        }
    }

    /// One mutator thread sets `age` = 1, 2, 3, ... and notes, before each set, whether the test thread's removal had
    /// already returned. No set that started after that may be delivered.
    func testChangesFromAnotherThreadAfterRemovalReturnedNeverArrive() {
        for removal in Removal.allCases {
            let observer = GuardTestObserver()
            let sink = CountingSink()
            var controller: ObservationController<GuardTestObserver>? = ObservationController(
                observer: observer, diagnosticSink: sink)
            let person = Person()
            let delivered = LockedBox<[Int]>([])
            let removalReturned = LockedBox(false)
            let setsAfterRemoval = LockedBox<[Int]>([])
            let enoughDelivered = DispatchSemaphore(value: 0)
            let baseline = liveObservances
            withDeadlockWatchdog("ordering (\(removal))") {
                assertNoMisuse {
                    controller?.observe(person, keyPath: "age", options: .new) { _, _, change in
                        let value = change.newValue(as: Int.self) ?? -1
                        let count = delivered.mutate { list -> Int in
                            list.append(value)
                            return list.count
                        }
                        if count == 200 { enoughDelivered.signal() }
                    }
                    let mutator = DispatchGroup()
                    DispatchQueue(label: "guard-tests.mutator").async(group: mutator) {
                        var value = 0
                        var afterCount = 0
                        while afterCount < 2_000 {
                            value += 1
                            let after = removalReturned.value
                            person.age = value
                            if after {
                                afterCount += 1
                                setsAfterRemoval.mutate { $0.append(value) }
                            }
                        }
                    }
                    enoughDelivered.wait()
                    remove(removal, person, from: &controller)
                    removalReturned.value = true
                    mutator.wait()
                }
            }
            let received = delivered.value
            let after = Set(setsAfterRemoval.value)
            XCTAssertEqual(after.count, 2_000, "\(removal)")
            XCTAssertGreaterThanOrEqual(received.count, 200, "\(removal)")
            XCTAssertEqual(
                received, Array(1...max(1, received.count)), "\(removal): every change before removal, once, in order")
            XCTAssertTrue(
                after.isDisjoint(with: received), "\(removal): a change made after removal returned was delivered")
            XCTAssertEqual(person.observationCount, 0, "\(removal)")
            XCTAssertEqual(sink.records, [], "\(removal)")
            controller = nil
            XCTAssertEqual(liveObservances, baseline, "\(removal)")
        }
    }

    /// A delivery already past its first liveness check is parked right before the handler; the test thread removes
    /// the registration meanwhile. The guard checks again before calling, so the handler never runs.
    func testADeliveryParkedBeforeTheHandlerIsDroppedOnceRemovalReturned() {
        for removal in Removal.allCases {
            let observer = GuardTestObserver()
            let sink = CountingSink()
            var controller: ObservationController<GuardTestObserver>? = ObservationController(
                observer: observer, diagnosticSink: sink)
            let person = Person()
            let log = HandlerLog()
            let pause = SchedulePause(at: .guardBeforeHandler)
            defer { pause.uninstall() }
            withDeadlockWatchdog("parked delivery (\(removal))") {
                assertNoMisuse {
                    controller?.observe(person, keyPath: "age", options: .new, handler: log.recording("h"))
                    let mutator = pause.runOnPausedThread(label: "guard-tests.parked-mutator") { person.age = 1 }
                    remove(removal, person, from: &controller)
                    pause.resume()
                    mutator.wait()
                    person.age = 2
                }
            }
            XCTAssertEqual(log.all, [], "\(removal)")
            XCTAssertEqual(person.observationCount, 0, "\(removal)")
            XCTAssertEqual(sink.records, [], "\(removal)")
            controller = nil
        }
    }

    func testChangesOnTheSameThreadAfterRemovalNeverArrive() {
        let observer = GuardTestObserver()
        let (sink, controller) = makeController(for: observer)
        let person = Person()
        let log = HandlerLog()
        assertNoMisuse {
            controller.observe(person, keyPaths: ["age", "name"], options: [.new, .prior], handler: log.recording("h"))
            person.age = 1
            controller.unobserve(person, keyPath: "age")
            person.age = 2
            person.name = "x"
            controller.unobserve(person)
            person.name = "y"
        }
        XCTAssertEqual(
            log.all,
            [
                expectedCall("h", observer: observer, object: person, keyPath: "age", prior: true),
                expectedCall("h", observer: observer, object: person, keyPath: "age", new: 1),
                expectedCall("h", observer: observer, object: person, keyPath: "name", prior: true),
                expectedCall("h", observer: observer, object: person, keyPath: "name", new: "x"),
            ])
        XCTAssertEqual(sink.records, [])
    }
}
