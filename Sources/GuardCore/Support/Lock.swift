#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import GuardCoreAtomics

/// A mutual-exclusion lock: GuardCore's one lock type.
///
/// ```swift
/// let lock = Lock()
/// let count = lock.withLock { counter += 1; return counter }
/// ```
///
/// - The lock is not recursive. In debug builds it is an error-checking pthread mutex: a thread that takes it again
///   while holding it (user code run under it that called back into KVOGuard) stops with a message instead of
///   hanging. Release builds on Linux use a lock in one word (``LockPrimitive``), taken uncontended with one inlined
///   compare-and-exchange; elsewhere a normal pthread mutex.
/// - Every acquire and release is announced to ``SchedulePoints`` under the lock's identity (one atomic load when no
///   hook is installed), so a controlled runner can interleave threads at lock boundaries and knows who holds what;
///   the one-word lock also says whether each release woke a sleeping waiter (``LockWaiters``), so a release that
///   forgot to wake one leaves a waiter that never runs again there too.
/// - ThreadSanitizer understands it (unlike `Synchronization.Mutex` on Linux, which it reports falsely), and it is
///   available on every platform the package targets.
///
/// The lock keeps its ``LockPrimitive`` inline, so a lock is one allocation. ``Protected`` is a value boxed with such
/// a lock; the two objects on the hottest paths (``ControllerCore``, ``ObservationTable``) keep the same primitive
/// inline in themselves and take it through the same ``LockOperations``.
package final class Lock: @unchecked Sendable {
    /// The primitive, reached by address only (``LockOperations/primitive(of:afterWords:)``): keep it first.
    private var lockPrimitive = LockPrimitive()

    /// Creates an unlocked lock.
    package init() {
        LockOperations.initialize(LockOperations.primitive(of: self))
        SchedulePoints.created(self)
    }

    deinit {
        LockOperations.destroy(LockOperations.primitive(of: self))
    }

    /// Blocks until the lock is acquired.
    @inline(__always)
    package func lock() {
        LockOperations.lock(LockOperations.primitive(of: self), announcedAs: self)
    }

    /// Releases the lock; the caller must hold it.
    @inline(__always)
    package func unlock() {
        LockOperations.unlock(LockOperations.primitive(of: self), announcedAs: self)
    }

    /// Runs `body` with the lock held and returns its result; the lock is released even if `body` throws.
    @inline(__always)
    package func withLock<Result>(_ body: () throws -> Result) rethrows -> Result {
        lock()
        defer { unlock() }
        return try body()
    }
}

#if os(Linux) && !DEBUG
/// What one lock stores: in release builds on Linux a `gca_lock` (GuardCoreAtomics), a lock in one 32-bit word
/// taken uncontended with one compare-and-exchange and released with one exchange, both inlined; a thread that finds
/// it taken spins briefly, then sleeps in the kernel (a futex) until a release wakes it.
typealias LockPrimitive = gca_lock
#else
/// What one lock stores: a pthread mutex, error-checking in debug builds (see ``Lock``).
typealias LockPrimitive = pthread_mutex_t
#endif

/// The operations on a ``LockPrimitive`` kept inline in an object: the one layer between GuardCore's locks and the
/// platform.
///
/// An object keeps its primitive as a stored property right after its leading atomic words, if any (see
/// ``InlineAtomicWords``, whose layout rule applies): instances never move, so its address is stable, as POSIX
/// requires. The object initializes it at the end of its `init` and destroys it in its `deinit`.
enum LockOperations {
    /// The primitive `object` keeps as its stored property right after `leadingWords` atomic words.
    @inline(__always)
    static func primitive(of object: AnyObject, afterWords leadingWords: Int = 0) -> UnsafeMutablePointer<LockPrimitive> {
        (_getUnsafePointerToStoredProperties(object) + leadingWords * MemoryLayout<gca_word>.stride)
            .assumingMemoryBound(to: LockPrimitive.self)
    }

    /// Makes the primitive at `primitive` an unlocked lock.
    static func initialize(_ primitive: UnsafeMutablePointer<LockPrimitive>) {
        #if os(Linux) && !DEBUG
        primitive.pointee = gca_lock()
        #else
        var attributes = pthread_mutexattr_t()
        pthread_mutexattr_init(&attributes)
        defer { pthread_mutexattr_destroy(&attributes) }
        #if DEBUG
        pthread_mutexattr_settype(&attributes, Int32(PTHREAD_MUTEX_ERRORCHECK))
        #endif
        let status = pthread_mutex_init(primitive, &attributes)
        precondition(status == 0, "pthread_mutex_init failed with \(status)")
        #endif
    }

    /// Ends the lock at `primitive`; it must not be held.
    static func destroy(_ primitive: UnsafeMutablePointer<LockPrimitive>) {
        #if os(Linux) && !DEBUG
        precondition(!gca_lock_is_held(primitive), "KVOGuard: a lock was destroyed while held")
        #else
        let status = pthread_mutex_destroy(primitive)
        precondition(status == 0, "pthread_mutex_destroy failed with \(status) (the lock was destroyed while held)")
        #endif
    }

    /// Blocks until the lock is acquired, announcing the acquire to ``SchedulePoints`` as `owner`'s (the object that
    /// keeps the primitive) first; `readOnly` announces a critical section that only reads what the lock guards and
    /// reaches no schedule point.
    @inline(__always)
    static func lock(
        _ primitive: UnsafeMutablePointer<LockPrimitive>, announcedAs owner: AnyObject, readOnly: Bool = false
    ) {
        #if os(Linux) && !DEBUG
        SchedulePoints.willAcquire(owner, waiters: LockWaiters(wordLock: primitive), readOnly: readOnly)
        #else
        SchedulePoints.willAcquire(owner, readOnly: readOnly)
        #endif
        lock(primitive)
    }

    /// Releases the lock, which the caller holds, then announces the release to ``SchedulePoints`` as `owner`'s.
    @inline(__always)
    static func unlock(_ primitive: UnsafeMutablePointer<LockPrimitive>, announcedAs owner: AnyObject) {
        #if os(Linux) && !DEBUG
        SchedulePoints.didRelease(owner, wokeWaiter: gca_lock_release(primitive))
        #else
        unlock(primitive)
        SchedulePoints.didRelease(owner)
        #endif
    }

    /// Blocks until the lock is acquired, announcing nothing: only for a critical section that runs no GuardCore
    /// code and so is no schedule point (``LossyLineWriter``).
    @inline(__always)
    static func lock(_ primitive: UnsafeMutablePointer<LockPrimitive>) {
        #if os(Linux) && !DEBUG
        gca_lock_acquire(primitive)
        #else
        let status = pthread_mutex_lock(primitive)
        if status != 0 { fail("pthread_mutex_lock", status) }
        #endif
    }

    /// Releases the lock, which the caller holds, announcing nothing (see ``lock(_:)``).
    @inline(__always)
    static func unlock(_ primitive: UnsafeMutablePointer<LockPrimitive>) {
        #if os(Linux) && !DEBUG
        gca_lock_release(primitive)
        #else
        let status = pthread_mutex_unlock(primitive)
        if status != 0 { fail("pthread_mutex_unlock", status) }
        #endif
    }

    @inline(never)
    private static func fail(_ call: String, _ status: Int32) -> Never {
        switch status {
        case EDEADLK:
            preconditionFailure(
                "KVOGuard: a thread took a lock it already holds (\(call): EDEADLK). Something ran user code or "
                    + "re-entered KVOGuard while one of its internal locks was held; in a release build this hangs.")
        case EPERM:
            preconditionFailure("KVOGuard: a thread released a lock it does not hold (\(call): EPERM).")
        default:
            preconditionFailure("\(call) failed with \(status)")
        }
    }
}
