import GuardCoreAtomics

/// Places inside GuardCore where a fault injector may pause, yield or switch threads.
///
/// They sit between the steps of an operation where another thread's interleaving matters: after a table
/// snapshot and before the callback, between the guard's bookkeeping and its call into the runtime, and so on.
/// Every ``Lock`` acquire and release is a point too (see ``ScheduleHook``).
package enum SchedulePoint: UInt8, Sendable, CaseIterable {
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

/// What a fault injector installs to act at schedule points. Called on the thread that reaches the point.
package protocol ScheduleHook: AnyObject, Sendable {
    /// The thread reached `point`.
    func reach(_ point: SchedulePoint)
    /// The thread is about to take `lock` (a ``Lock`` or another lock that announces itself). A cooperative
    /// scheduler may run other threads first and must return only when `lock` is free for this thread.
    func willAcquire(_ lock: ObjectIdentifier)
    /// The thread released `lock`.
    func didRelease(_ lock: ObjectIdentifier)
}

/// The hook FaultInjector installs to act at ``SchedulePoint``s and lock boundaries. When none is installed,
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

    /// Installs `body` to run at every ``SchedulePoint`` (lock boundaries are ignored), replacing any previous hook.
    package static func install(atPoints body: @escaping @Sendable (SchedulePoint) -> Void) {
        install(PointHook(body))
    }

    /// Removes the hook; points reached afterwards do nothing.
    package static func uninstall() {
        current.store(0, ordering: .releasing)
    }

    /// Runs the installed hook, if any, for `point`.
    @inline(__always)
    package static func reach(_ point: SchedulePoint) {
        installed?.reach(point)
    }

    /// Tells the installed hook, if any, that the calling thread is about to take `lock`.
    @inline(__always)
    package static func willAcquire(_ lock: AnyObject) {
        installed?.willAcquire(ObjectIdentifier(lock))
    }

    /// Tells the installed hook, if any, that the calling thread released `lock`.
    @inline(__always)
    package static func didRelease(_ lock: AnyObject) {
        installed?.didRelease(ObjectIdentifier(lock))
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
    private let body: @Sendable (SchedulePoint) -> Void

    init(_ body: @escaping @Sendable (SchedulePoint) -> Void) {
        self.body = body
    }

    func reach(_ point: SchedulePoint) { body(point) }
    func willAcquire(_ lock: ObjectIdentifier) {}
    func didRelease(_ lock: ObjectIdentifier) {}
}
