import GuardCore

/// How far a worker got, readable from the watchdog thread.
final class ProgressCounter: Sendable {
    private let completed = AtomicCell()
    private let current = AtomicCell(int: -1)

    /// Operations the worker finished.
    var completedOperations: Int { completed.word.loadInt(ordering: .relaxed) }
    /// The index of the operation under way, or -1.
    var currentIndex: Int { current.word.loadInt(ordering: .relaxed) }

    func begin(_ index: Int) { current.word.storeInt(index, ordering: .relaxed) }

    func finish() {
        current.word.storeInt(-1, ordering: .relaxed)
        completed.word.add(1, ordering: .relaxed)
    }
}
