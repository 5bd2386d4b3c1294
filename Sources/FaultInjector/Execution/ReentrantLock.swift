import GuardCore

/// A recursive lock built on GuardCore's ``Lock``: the thread that holds it may take it again. Only the outermost
/// acquire and release reach the inner lock, so a cooperative scheduler sees this lock taken and released exactly
/// once per outermost use (and never a self-deadlock for a legal re-entry).
final class ReentrantLock: @unchecked Sendable {
    private let inner = Lock()
    /// The holding thread's identifier plus one, or 0.
    private let owner = AtomicCell()
    /// How often the owner took it; touched only by the owner.
    private var depth = 0

    /// The identity the inner lock announces to the schedule hook.
    var identity: ObjectIdentifier { ObjectIdentifier(inner) }

    /// Blocks until the calling thread holds the lock (at once if it holds it already).
    func lock() {
        let me = CurrentThread.identifier &+ 1
        if owner.word.load(ordering: .relaxed) == me {
            depth += 1
            return
        }
        inner.lock()
        owner.word.store(me, ordering: .relaxed)
        depth = 1
    }

    /// Releases one level; the last release unlocks.
    func unlock() {
        depth -= 1
        guard depth == 0 else { return }
        owner.word.store(0, ordering: .relaxed)
        inner.unlock()
    }
}
