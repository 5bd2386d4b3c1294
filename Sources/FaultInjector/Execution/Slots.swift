import Foundation
import GuardCore

/// One object slot: the object currently in it, and the lock that serializes mutations of that slot's objects
/// (concurrent sets of one Swift property are a data race in any program; the harness models correct callers).
final class ObjectSlot: @unchecked Sendable {
    let index: Int
    /// Held around every mutation and every observe that reads the value for `.initial` + `.new`. Recursive, so
    /// a handler may mutate the object whose change it is handling.
    let mutationLock = NSRecursiveLock()
    private let lock = Lock()
    private var current: StressObject?

    init(index: Int, object: StressObject) {
        self.index = index
        self.current = object
    }

    var object: StressObject? {
        lock.withLock { current }
    }

    /// Puts `object` in the slot and returns the previous one (for the caller to drop).
    func replace(with object: StressObject?) -> StressObject? {
        lock.withLock {
            let previous = current
            current = object
            return previous
        }
    }
}

/// One controller slot: the observer currently in it (which owns its controller).
final class ControllerSlot: @unchecked Sendable {
    let index: Int
    let holdsWeakly: Bool
    private let lock = Lock()
    private var current: StressObserver?

    init(index: Int, holdsWeakly: Bool, observer: StressObserver) {
        self.index = index
        self.holdsWeakly = holdsWeakly
        self.current = observer
    }

    var observer: StressObserver? {
        lock.withLock { current }
    }

    /// Puts `observer` in the slot and returns the previous one (for the caller to drop).
    func replace(with observer: StressObserver?) -> StressObserver? {
        lock.withLock {
            let previous = current
            current = observer
            return previous
        }
    }
}
