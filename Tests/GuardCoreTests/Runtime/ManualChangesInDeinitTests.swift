import Foundation
@testable import GuardCore
import XCTest

/// A model that announces `level` by hand and runs a closure in its deinit.
private final class ClosingModel: KVOObject, @unchecked Sendable {
    @Observed var level = 0
    @Observed var items: [Int] = [1, 2, 3]
    var onDeinit: ((ClosingModel) -> Void)?

    override class func automaticallyNotifiesObservers(forKey key: String) -> Bool {
        key == "level" ? false : super.automaticallyNotifiesObservers(forKey: key)
    }

    deinit { onDeinit?(self) }
}

/// An object may announce changes in its own deinit, as in Foundation (a `close()` that announces a state change):
/// the pair matches although a weak reference to the object already reads `nil` there, and a change it leaves
/// pending ends with the object.
final class ManualChangesInDeinitTests: XCTestCase {
    func testABalancedPairInDeinitIsNoMisuseAndReachesItsObserver() {
        let recorder = Recorder()
        let misuses = recordingMisuse {
            var model: ClosingModel? = ClosingModel()
            model?.addObserver(recorder, forKeyPath: "level", options: [.new])
            model?.onDeinit = { object in
                object.willChangeValue(forKey: "level")
                object.level = 7
                object.didChangeValue(forKey: "level")
                object.removeObserver(recorder, forKeyPath: "level")
            }
            model = nil
        }
        XCTAssertEqual(misuses.map(\.kind), [])
        XCTAssertEqual(recorder.changes.map { $0.newValue(as: Int.self) }, [7])
    }

    func testNestedPairsAndAToManyHelperInDeinitPair() {
        let misuses = recordingMisuse {
            var model: ClosingModel? = ClosingModel()
            model?.onDeinit = { object in
                object.willChangeValue(forKey: "level")
                object.willChangeValue(forKey: "items")
                object.didChangeValue(forKey: "items")
                XCTAssertTrue(object.removeElements(at: IndexSet(integer: 0), from: \.items))
                object.didChangeValue(forKey: "level")
            }
            model = nil
        }
        XCTAssertEqual(misuses.map(\.kind), [])
        XCTAssertEqual(ManualChanges.pendingCountOnThisThread, 0)
    }

    func testAChangeOfAWeaklyHeldObjectAnnouncedInItsDeinitReachesTheGuard() {
        let observer = GuardTestObserver()
        let seen = TestBox<[Int?]>([])
        let misuses = recordingMisuse {
            let (sink, controller) = makeController(for: observer, retainsObservedObjects: false)
            var model: ClosingModel? = ClosingModel()
            controller.observe(model, keyPath: "level", options: [.new]) { _, _, change in
                seen.mutate { $0.append(change.newValue(as: Int.self)) }
            }
            model?.onDeinit = { object in
                object.willChangeValue(forKey: "level")
                object.level = 9
                object.didChangeValue(forKey: "level")
            }
            model = nil
            XCTAssertEqual(sink.events, [])
            XCTAssertEqual(controller.registrationCount, 0, "the deinit dropped the registration")
        }
        XCTAssertEqual(misuses.map(\.kind), [])
        XCTAssertEqual(seen.get(), [9], "the change announced in deinit is delivered like any other")
    }

    func testAChangeLeftPendingInDeinitEndsWithTheObjectAndPairsWithNothingLater() {
        let baseline = ManualChanges.pendingCountOnThisThread
        var model: ClosingModel? = ClosingModel()
        model?.onDeinit = { object in object.willChangeValue(forKey: "level") }
        model = nil
        XCTAssertEqual(ManualChanges.pendingCountOnThisThread, baseline, "nothing left pending once the object is gone")
        // Objects made now may reuse the dead one's address: none of them finds a change to end.
        for _ in 0..<64 {
            let next = ClosingModel()
            let misuses = recordingMisuse { next.didChangeValue(forKey: "level") }
            XCTAssertEqual(misuses.map(\.kind), [.unpairedDidChange])
        }
    }

    func testAChangeBegunBeforeTheDeinitOfAnotherObjectIsNotMistakenForOneBegunInIt() {
        // `other` begins a change while alive and dies with it pending: that entry is dropped as a dead object's,
        // and the deinit of a later object never ends it.
        var other: ClosingModel? = ClosingModel()
        other?.willChangeValue(forKey: "level")
        other = nil
        let misuses = recordingMisuse {
            var model: ClosingModel? = ClosingModel()
            model?.onDeinit = { object in object.didChangeValue(forKey: "level") }
            model = nil
        }
        XCTAssertEqual(misuses.map(\.kind), [.unpairedDidChange])
    }
}
