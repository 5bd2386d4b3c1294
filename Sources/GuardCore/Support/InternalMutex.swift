#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import GuardCoreAtomics

/// The mutex behind GuardCore's hot locks (``EmbeddedLock``, the runtime's per-object ``ObservationTable``): a
/// ``WordLock`` in release builds on Linux, where taking an uncontended lock is one inlined compare-and-exchange
/// instead of a call into glibc; a ``PthreadMutex`` everywhere else, and in every debug build, whose error-checking
/// mutex stops a thread that takes a lock it already holds with a message instead of hanging.
///
/// Like ``PthreadMutex`` it works on storage at a fixed address, and announces every acquire and release to
/// ``SchedulePoints`` under the identity of the object that owns the lock.
enum InternalMutex {
    #if os(Linux) && !DEBUG
    /// What one lock stores.
    typealias Storage = gca_lock
    #else
    /// What one lock stores.
    typealias Storage = pthread_mutex_t
    #endif

    /// A new unlocked lock in a heap block of its own (its address never moves); free it with ``deallocate(_:)``.
    static func allocate() -> UnsafeMutablePointer<Storage> {
        let storage = UnsafeMutablePointer<Storage>.allocate(capacity: 1)
        storage.initialize(to: Storage())
        initialize(storage)
        return storage
    }

    /// Destroys a lock made by ``allocate()`` and frees its block; it must not be held.
    static func deallocate(_ storage: UnsafeMutablePointer<Storage>) {
        destroy(storage)
        storage.deinitialize(count: 1)
        storage.deallocate()
    }

    /// Initializes the lock at `storage` (which must stay at that address until ``destroy(_:)``).
    static func initialize(_ storage: UnsafeMutablePointer<Storage>) {
        #if os(Linux) && !DEBUG
        WordLock.initialize(storage)
        #else
        PthreadMutex.initialize(storage)
        #endif
    }

    /// Ends the lock at `storage`; it must not be held.
    static func destroy(_ storage: UnsafeMutablePointer<Storage>) {
        #if os(Linux) && !DEBUG
        WordLock.destroy(storage)
        #else
        PthreadMutex.destroy(storage)
        #endif
    }

    /// Blocks until the lock is acquired.
    @inline(__always)
    static func lock(_ storage: UnsafeMutablePointer<Storage>, ownedBy owner: AnyObject) {
        #if os(Linux) && !DEBUG
        SchedulePoints.willAcquire(owner)
        WordLock.lock(storage)
        #else
        PthreadMutex.lock(storage, ownedBy: owner)
        #endif
    }

    /// Releases the lock; the caller must hold it.
    @inline(__always)
    static func unlock(_ storage: UnsafeMutablePointer<Storage>, ownedBy owner: AnyObject) {
        #if os(Linux) && !DEBUG
        WordLock.unlock(storage)
        SchedulePoints.didRelease(owner)
        #else
        PthreadMutex.unlock(storage, ownedBy: owner)
        #endif
    }
}
