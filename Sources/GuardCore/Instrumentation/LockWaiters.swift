import GuardCoreAtomics

/// How a cooperative scheduler stands in for a thread that would sleep on a lock, so that a release that forgets to
/// wake its waiters shows as a waiter that never runs again.
///
/// A scheduler that runs one thread at a time never lets a thread really sleep on a lock: it holds the thread back at
/// the lock's announcement until the lock is free. For a lock whose waiters sleep until its release wakes them
/// (GuardCore's one-word lock), the scheduler marks the lock as having a waiter while it holds one back, as the
/// waiter itself would before sleeping, and the lock's release says whether it woke one
/// (``ScheduleHook/didRelease(_:wokeWaiter:)``). A lock whose waiting the scheduler cannot see (a pthread mutex)
/// is ``untracked``: its releases are taken to wake its waiters.
package struct LockWaiters: @unchecked Sendable {
    #if os(Linux)
    private let wordLock: UnsafeMutablePointer<gca_lock>?
    #endif

    /// A lock whose waiters a scheduler cannot see: every release is taken to wake them.
    package static var untracked: LockWaiters {
        #if os(Linux)
        LockWaiters(wordLock: nil)
        #else
        LockWaiters()
        #endif
    }

    #if os(Linux)
    /// The waiters of the one-word lock at `wordLock`, whose release reports whether it woke one.
    @inline(__always)
    package init(wordLock: UnsafeMutablePointer<gca_lock>?) {
        self.wordLock = wordLock
    }
    #else
    private init() {}
    #endif

    /// Marks the lock, which another thread holds, as having a waiter, as a thread about to sleep on it would; its
    /// release must then wake a waiter. Returns whether it did: `false` for an ``untracked`` lock (or a lock found
    /// free), whose release the scheduler takes to wake its waiters.
    package func markWaiting() -> Bool {
        #if os(Linux)
        guard let wordLock else { return false }
        return gca_lock_mark_waiting(wordLock)
        #else
        return false
        #endif
    }
}
