import GuardCore
import XCTest

/// A set of an `@Observed` property nobody observes takes no lock (the unobserved setter is one load of the
/// object's "anyone observing this key?" bit); a set of an observed one does, which shows the count sees locks.
final class UnobservedSetLockTests: XCTestCase {
    private final class Model: KVOObject, @unchecked Sendable {
        @Observed var value = 0
        @Observed var other = 0
    }

    /// How many GuardCore locks the calling thread released while running `body`.
    private func locksReleased(during body: () -> Void) -> Int {
        LockReleaseTrigger.run(afterRelease: Int.max, do: {}, during: body).releases
    }

    func testASetNobodyObservesTakesNoLock() {
        let fresh = Model()
        XCTAssertEqual(locksReleased { for step in 1...100 { fresh.value = step } }, 0, "an object never observed")

        let recorder = Recorder()
        let onceObserved = Model()
        onceObserved.addObserver(recorder, forKeyPath: "value")
        onceObserved.removeObserver(recorder, forKeyPath: "value")
        XCTAssertEqual(
            locksReleased { for step in 1...100 { onceObserved.value = step } }, 0, "an object observed before")

        onceObserved.addObserver(recorder, forKeyPath: "other")
        // The first set of a property while its object is observed learns the property's key, once per property
        // (see `ObservedKeyTests`); every later set of it nobody observes is lock-free.
        onceObserved.value = 0
        XCTAssertEqual(
            locksReleased { for step in 1...100 { onceObserved.value = step } }, 0, "another key of it observed")
        XCTAssertGreaterThan(locksReleased { onceObserved.other = 1 }, 0, "an observed key takes the table's lock")
        onceObserved.removeObserver(recorder, forKeyPath: "other")
        XCTAssertEqual(recorder.count, 1)
    }
}
