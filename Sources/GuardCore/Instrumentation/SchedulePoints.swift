import GuardCoreAtomics

/// GuardCore's named schedule points: places inside GuardCore where a fault injector may pause, yield or switch
/// threads.
///
/// They sit between the steps of an operation where another thread's interleaving matters: after a table
/// snapshot and before the callback, between the guard's bookkeeping and its call into the runtime, and so on.
/// GuardCore's other schedule points are unnamed: every ``Lock`` acquire and release (see ``ScheduleHook``).
/// FaultInjector's `SchedulePoint` is the whole set a controlled run switches at: these, the lock boundaries, and
/// the harness's own.
package enum NamedSchedulePoint: UInt8, Sendable, CaseIterable {
    /// The runtime took its snapshot of observances and is about to call one.
    case runtimeBeforeCallback
    /// The runtime is about to store a new value between the prior and the change notifications.
    case runtimeBeforeStore
    /// The runtime delivered the `.initial` notification and is about to insert the observance.
    case runtimeBeforeInsert
    /// A dotted key path's re-wiring read the object now at its first key and is about to move its forwarder there.
    case runtimeRewireRead
    /// The guard reserved a registration and is about to register with the runtime.
    case guardBeforeRegister
    /// The guard registered with the runtime and is about to publish the registration.
    case guardAfterRegister
    /// The guard took a registration out of its table and is about to unregister it from the runtime.
    case guardBeforeUnregister
    /// The guard checked a registration is live and is about to run its handler.
    case guardBeforeHandler
}

/// A word of state that GuardCore reads or writes without holding a lock, where the order of those accesses across
/// threads decides an outcome. An explorer of interleavings records each access (``SchedulePoints/access(_:_:_:)``)
/// so that two steps touching the same word, at least one writing it, count as dependent.
package enum SharedWord: UInt8, Sendable, CaseIterable {
    /// A guard registration's ``RegistrationState``; the lock of a controller's table of registrations guards it
    /// (``SchedulePoints/guards(_:_:)``).
    case registrationState
    /// An observance's active flag (``Observance/isActive``).
    case observanceActive
    /// An object's announced-keys mask (``KeyBit``), read by every set.
    case announcedKeys
    /// An object's observation table pointer, published once by the first registration; the table's lock guards the
    /// runtime's registrations of the object (``SchedulePoints/guards(_:_:)``).
    case observationTable
    /// The keys an object's `@Observed` properties resolved, each stored in the property by the first set that takes
    /// the announcing path: a set reads it, and whether it was resolved decides how many steps the set takes.
    case resolvedKeys
    /// A read-mostly cache's generation word (``ReadMostlyCache``).
    case cacheGeneration
    /// A dotted key path's re-wiring generation (an observance's).
    case rewireGeneration
    /// One of a dotted key path forwarder's words (attached, chain broken, pairing).
    case forwarder
    /// A dependent key's relay word (installed).
    case relay
    /// An object's life: taking a strong reference (a read), dropping one (see ``SharedAccess/drop``), its owner
    /// letting go of it and its deinit (writes): which drop is the last decides which thread runs the deinit.
    case lifetime
    /// The calls of one registration's handler, in the order the handler hears them: a fault injector whose handler
    /// records its notifications announces each call as a write, so two calls on two threads count as dependent and
    /// their order is part of what an explorer tells apart.
    case handlerCalls
    /// A table of registrations read or written without the lock that guards it (a fault injector's planted bug
    /// does): each access announced, so an explorer sees the race the missing lock leaves.
    case unlockedTable
}

/// How a step touches a ``SharedWord``.
package enum SharedAccess: UInt8, Sendable {
    /// Reads it.
    case read
    /// Writes it (a compare-and-exchange that succeeds, an exchange, a store).
    case write
    /// Takes a strong reference to the object (``SharedWord/lifetime`` only), a read, which the thread keeps until its
    /// current operation of the harness ends: an explorer counts the step that ends the operation as dropping it.
    case hold
    /// Drops a strong reference to the object (``SharedWord/lifetime`` only). While the object's owner still holds it
    /// (it is in its slot), no drop can be the last, and drops commute with one another: a read; once the owner let
    /// go (a write of its life), a drop may be the last and run the deinit: a write.
    case drop
}

/// What a fault injector installs to act at schedule points. Called on the thread that reaches the point.
package protocol ScheduleHook: AnyObject, Sendable {
    /// The thread reached `point`, about to act on `object` (the registration, observance, controller, table or
    /// object the step after the point works on).
    func reach(_ point: NamedSchedulePoint, object: ObjectIdentifier)
    /// The thread accessed `word` of `object` without a lock (see ``SharedWord``).
    func access(_ object: ObjectIdentifier, _ word: SharedWord, _ kind: SharedAccess)
    /// The thread finished making `object`, one whose identity schedule points and accesses may name (a lock's owner,
    /// a registration, an observed object's table...): an explorer names it by who made it, which is the same in
    /// every execution, rather than by its address, which is not.
    func created(_ object: ObjectIdentifier)
    /// `lock` (just created) guards state of kind `word`: an explorer that leaves `word` out of its footprints, to
    /// show what its dependency relation needs, leaves the lock's acquisitions out too. Hooks that keep no
    /// footprints ignore it (the default).
    func guards(_ lock: ObjectIdentifier, _ word: SharedWord)
    /// The thread is about to take `lock` (a ``Lock`` or another lock that announces itself), whose sleeping waiters
    /// are `waiters`. A cooperative scheduler may run other threads first and must return only when `lock` is free
    /// for this thread. `readOnly`: the critical section only reads what the lock guards and reaches no schedule
    /// point, so two such sections of one lock commute.
    func willAcquire(_ lock: ObjectIdentifier, waiters: LockWaiters, readOnly: Bool)
    /// The thread released `lock`; `wokeWaiter` says whether the release woke a sleeping waiter, `nil` where the
    /// lock does not say (see ``LockWaiters``).
    func didRelease(_ lock: ObjectIdentifier, wokeWaiter: Bool?)
}

extension ScheduleHook {
    /// Ignores what a lock guards.
    package func guards(_ lock: ObjectIdentifier, _ word: SharedWord) {}
}

/// The hook FaultInjector installs to act at ``NamedSchedulePoint``s and lock boundaries. When none is installed,
/// reaching a point costs one atomic load and a nil check.
package enum SchedulePoints {
    /// Keeps the hook behind one concrete class, so finding it costs no dynamic cast.
    private final class Installed: Sendable {
        let hook: any ScheduleHook
        init(_ hook: any ScheduleHook) { self.hook = hook }
    }

    /// The installed hook (a retained `Installed`), or 0.
    private static var current: AtomicWord {
        AtomicWord(gca_schedule_hook_word())
    }

    /// Installs `hook` for every thread, replacing any previous hook.
    ///
    /// A replaced hook is intentionally never released: another thread may still be running it.
    package static func install(_ hook: any ScheduleHook) {
        let retained = Unmanaged.passRetained(Installed(hook)).toOpaque()
        current.store(UInt64(UInt(bitPattern: retained)), ordering: .releasing)
    }

    /// Installs `body` to run at every ``NamedSchedulePoint`` (lock boundaries are ignored), replacing any previous
    /// hook.
    package static func install(atPoints body: @escaping @Sendable (NamedSchedulePoint) -> Void) {
        install(PointHook(body))
    }

    /// Removes the hook; points reached afterwards do nothing.
    package static func uninstall() {
        current.store(0, ordering: .releasing)
    }

    /// Runs the installed hook, if any, for `point`, where the thread is about to act on `object`.
    @inline(__always)
    package static func reach<Object: AnyObject>(_ point: NamedSchedulePoint, _ object: Object) {
        if _slowPath(isInstalled) { Dispatch.reach(point, ObjectIdentifier(object)) }
    }

    /// Tells the installed hook, if any, that the calling thread accessed `word` of `object` without a lock. Costs one
    /// atomic load and a nil check when no hook is installed.
    @inline(__always)
    package static func access<Object: AnyObject>(_ object: Object, _ word: SharedWord, _ kind: SharedAccess) {
        if _slowPath(isInstalled) { Dispatch.access(ObjectIdentifier(object), word, kind) }
    }

    /// ``access(_:_:_:)`` for an object known by its identity only (one that may be gone, such as the target of a
    /// weak reference that reads `nil`).
    @inline(__always)
    package static func access(_ object: ObjectIdentifier, _ word: SharedWord, _ kind: SharedAccess) {
        if _slowPath(isInstalled) { Dispatch.access(object, word, kind) }
    }

    /// Tells the installed hook, if any, that the calling thread finished making `object` (see
    /// ``ScheduleHook/created(_:)``). Costs one atomic load and a nil check when no hook is installed.
    @inline(__always)
    package static func created<Object: AnyObject>(_ object: Object) {
        if _slowPath(isInstalled) { Dispatch.created(ObjectIdentifier(object)) }
    }

    /// Tells the installed hook, if any, that `lock` (just created: after ``created(_:)``) guards state of kind
    /// `word` (see ``ScheduleHook/guards(_:_:)``). Costs one atomic load and a nil check when no hook is installed.
    @inline(__always)
    package static func guards(_ lock: AnyObject, _ word: SharedWord) {
        if _slowPath(isInstalled) { Dispatch.guards(ObjectIdentifier(lock), word) }
    }

    /// Whether a hook is installed: code that would record many accesses in a loop asks this first.
    @inline(__always)
    package static var isInstalled: Bool {
        current.load(ordering: .relaxed) != 0
    }

    /// Tells the installed hook, if any, that the calling thread is about to take `lock`, whose sleeping waiters are
    /// `waiters` (see ``LockWaiters``); `readOnly` for a critical section that only reads what the lock guards and
    /// reaches no schedule point.
    @inline(__always)
    package static func willAcquire(_ lock: AnyObject, waiters: LockWaiters = .untracked, readOnly: Bool = false) {
        if _slowPath(isInstalled) { Dispatch.willAcquire(ObjectIdentifier(lock), waiters, readOnly) }
    }

    /// Tells the installed hook, if any, that the calling thread released `lock`, and whether the release woke a
    /// sleeping waiter (`nil`: the lock does not say; see ``LockWaiters``).
    @inline(__always)
    package static func didRelease(_ lock: AnyObject, wokeWaiter: Bool? = nil) {
        if _slowPath(isInstalled) { Dispatch.didRelease(ObjectIdentifier(lock), wokeWaiter) }
    }

    /// The calls into an installed hook, out of line and given identities only, so that a schedule point costs its
    /// callers one load and one branch: no code around the hook's call, and no reference kept alive across it.
    private enum Dispatch {
        @inline(never)
        static func reach(_ point: NamedSchedulePoint, _ object: ObjectIdentifier) {
            installed?.reach(point, object: object)
        }

        @inline(never)
        static func access(_ object: ObjectIdentifier, _ word: SharedWord, _ kind: SharedAccess) {
            installed?.access(object, word, kind)
        }

        @inline(never)
        static func created(_ object: ObjectIdentifier) {
            installed?.created(object)
        }

        @inline(never)
        static func guards(_ lock: ObjectIdentifier, _ word: SharedWord) {
            installed?.guards(lock, word)
        }

        @inline(never)
        static func willAcquire(_ lock: ObjectIdentifier, _ waiters: LockWaiters, _ readOnly: Bool) {
            installed?.willAcquire(lock, waiters: waiters, readOnly: readOnly)
        }

        @inline(never)
        static func didRelease(_ lock: ObjectIdentifier, _ wokeWaiter: Bool?) {
            installed?.didRelease(lock, wokeWaiter: wokeWaiter)
        }
    }

    @inline(__always)
    private static var installed: (any ScheduleHook)? {
        guard let pointer = UnsafeRawPointer(bitPattern: UInt(truncatingIfNeeded: current.load(ordering: .acquiring)))
        else { return nil }
        return Unmanaged<Installed>.fromOpaque(pointer).takeUnretainedValue().hook
    }
}

/// A ``ScheduleHook`` that runs a closure at schedule points and ignores lock boundaries.
private final class PointHook: ScheduleHook {
    private let body: @Sendable (NamedSchedulePoint) -> Void

    init(_ body: @escaping @Sendable (NamedSchedulePoint) -> Void) {
        self.body = body
    }

    func reach(_ point: NamedSchedulePoint, object: ObjectIdentifier) { body(point) }
    func access(_ object: ObjectIdentifier, _ word: SharedWord, _ kind: SharedAccess) {}
    func created(_ object: ObjectIdentifier) {}
    func willAcquire(_ lock: ObjectIdentifier, waiters: LockWaiters, readOnly: Bool) {}
    func didRelease(_ lock: ObjectIdentifier, wokeWaiter: Bool?) {}
}
