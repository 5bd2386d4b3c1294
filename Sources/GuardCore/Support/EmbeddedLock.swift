#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The lock of one object, stored in it as a noncopyable value: a heap-allocated ``InternalMutex`` (its address never
/// moves; an error-checking pthread mutex in debug builds) without an object of its own.
///
/// Taking a ``Lock`` that an object keeps in a stored property loads and retains the lock object around the call;
/// taking an embedded lock only reads the mutex's address, so a hot path that locks twice pays no reference counting
/// for it. Lock boundaries are announced to ``SchedulePoints`` under the identity of the owner the caller names, which
/// must be the object that stores the lock (each owner has one embedded lock).
struct EmbeddedLock: ~Copyable, @unchecked Sendable {
    private let mutex: UnsafeMutablePointer<InternalMutex.Storage>

    /// Creates an unlocked lock.
    init() {
        mutex = InternalMutex.allocate()
    }

    deinit {
        InternalMutex.deallocate(mutex)
    }

    /// Blocks until the lock is acquired. `owner` is the object that stores this lock.
    @inline(__always)
    func lock(ownedBy owner: AnyObject) {
        InternalMutex.lock(mutex, ownedBy: owner)
    }

    /// Releases the lock; the caller must hold it. `owner` is the object that stores this lock.
    @inline(__always)
    func unlock(ownedBy owner: AnyObject) {
        InternalMutex.unlock(mutex, ownedBy: owner)
    }

    /// Runs `body` with the lock held and returns its result; the lock is released even if `body` throws. `owner` is
    /// the object that stores this lock.
    @inline(__always)
    func withLock<Result>(ownedBy owner: AnyObject, _ body: () throws -> Result) rethrows -> Result {
        lock(ownedBy: owner)
        defer { unlock(ownedBy: owner) }
        return try body()
    }
}
