import Synchronization

/// How far a worker got, readable from the watchdog thread.
final class ProgressCounter: Sendable {
    private let completed = Atomic<Int>(0)
    private let current = Atomic<Int>(-1)

    /// Operations the worker finished.
    var completedOperations: Int { completed.load(ordering: .relaxed) }
    /// The index of the operation under way, or -1.
    var currentIndex: Int { current.load(ordering: .relaxed) }

    func begin(_ index: Int) { current.store(index, ordering: .relaxed) }

    func finish() {
        current.store(-1, ordering: .relaxed)
        completed.add(1, ordering: .relaxed)
    }
}
