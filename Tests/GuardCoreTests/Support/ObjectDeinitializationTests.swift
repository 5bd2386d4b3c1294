import XCTest

@testable import GuardCore

/// `ObjectDeinitialization` tells an object running its deinit from a live one, by asking the Swift runtime and by a
/// weak reference alike.
final class ObjectDeinitializationTests: XCTestCase {
    /// A plain Swift class (no ``KVOObject``) that runs `onDeinit` with itself in its deinit.
    private final class PlainObject: @unchecked Sendable {
        let onDeinit: @Sendable (PlainObject) -> Void
        init(onDeinit: @escaping @Sendable (PlainObject) -> Void) { self.onDeinit = onDeinit }
        deinit { onDeinit(self) }
    }

    /// What each way of asking answered: in the deinit, then for a live object of the same class.
    private func answers(_ ask: @escaping @Sendable (AnyObject) -> Bool) -> (inDeinit: [Bool], live: [Bool]) {
        let inDeinit = LockedBox<[Bool]>([])
        _ = DeinitObservingModel { inDeinit.value.append(ask($0)) }
        _ = PlainObject { inDeinit.value.append(ask($0)) }
        let liveModel = DeinitObservingModel { _ in }
        let livePlain = PlainObject { _ in }
        return (inDeinit.value, [ask(liveModel), ask(livePlain)])
    }

    func testAnObjectRunningItsDeinitIsDeinitializing() {
        let (inDeinit, live) = answers { ObjectDeinitialization.isDeinitializing($0) }
        XCTAssertEqual(inDeinit, [true, true])
        XCTAssertEqual(live, [false, false])
    }

    func testAWeakReferenceTellsTheSame() {
        let (inDeinit, live) = answers { ObjectDeinitialization.isDeinitializingByWeakReference($0) }
        XCTAssertEqual(inDeinit, [true, true])
        XCTAssertEqual(live, [false, false])
    }

    /// Asking about a ``KVOObject`` leaves its reference counting as it was: the object is released normally after
    /// being asked about many times, from its deinit and before (no reference outlives the question).
    func testAskingKeepsNoReference() {
        weak var released: DeinitObservingModel?
        do {
            let model = DeinitObservingModel { model in
                for _ in 0..<100 { XCTAssertTrue(ObjectDeinitialization.isDeinitializing(model)) }
            }
            released = model
            for _ in 0..<100 { XCTAssertFalse(ObjectDeinitialization.isDeinitializing(model)) }
        }
        XCTAssertNil(released)
    }
}
