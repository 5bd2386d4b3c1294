import GuardCoreAtomics

/// The operations on a `gca_lock` (GuardCoreAtomics): a lock in one 32-bit word at a fixed address. Taking it
/// uncontended is one compare-and-exchange and releasing it one exchange, both inlined; a thread that finds it taken
/// spins briefly and then sleeps in the kernel (a futex) until a release wakes it. Linux only.
///
/// Not recursive and not error-checking: a thread that takes it again while holding it waits forever. GuardCore uses
/// it in release builds only (see ``InternalMutex``); its own tests run it in every build.
package enum WordLock {
    #if os(Linux)
    /// Makes the word at `lock` an unlocked lock.
    package static func initialize(_ lock: UnsafeMutablePointer<gca_lock>) {
        lock.pointee = gca_lock()
    }

    /// Ends the lock at `lock`; it must not be held.
    package static func destroy(_ lock: UnsafeMutablePointer<gca_lock>) {
        precondition(!gca_lock_is_held(lock), "KVOGuard: a lock was destroyed while held")
    }

    /// Blocks until the caller holds the lock (acquire ordering).
    @inline(__always)
    package static func lock(_ lock: UnsafeMutablePointer<gca_lock>) {
        gca_lock_acquire(lock)
    }

    /// Releases the lock, which the caller holds (release ordering), and wakes one waiting thread if any.
    @inline(__always)
    package static func unlock(_ lock: UnsafeMutablePointer<gca_lock>) {
        gca_lock_release(lock)
    }
    #endif
}
