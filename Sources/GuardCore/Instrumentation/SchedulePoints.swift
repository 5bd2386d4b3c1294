import Synchronization

/// Places inside GuardCore where a fault injector may pause, yield or switch threads.
///
/// They sit between the steps of an operation where another thread's interleaving matters: after a table
/// snapshot and before the callback, between the guard's bookkeeping and its call into the runtime, and so on.
package enum SchedulePoint: UInt8, Sendable, CaseIterable {
    /// The runtime took its snapshot of observances and is about to call one.
    case runtimeBeforeCallback
    /// The runtime is about to store a new value between the prior and the change notifications.
    case runtimeBeforeStore
    /// The runtime delivered the `.initial` notification and is about to insert the observance.
    case runtimeBeforeInsert
    /// The guard reserved a registration and is about to register with the runtime.
    case guardBeforeRegister
    /// The guard registered with the runtime and is about to publish the registration.
    case guardAfterRegister
    /// The guard took a registration out of its table and is about to unregister it from the runtime.
    case guardBeforeUnregister
    /// The guard checked a registration is live and is about to run its handler.
    case guardBeforeHandler
}

/// The hook FaultInjector installs to act at ``SchedulePoint``s. When none is installed, reaching a point costs
/// one atomic load and a nil check.
package enum SchedulePoints {
    private final class Hook: Sendable {
        let body: @Sendable (SchedulePoint) -> Void
        init(_ body: @escaping @Sendable (SchedulePoint) -> Void) { self.body = body }
    }

    private static let current = Atomic<Unmanaged<Hook>?>(nil)

    /// Installs `body` to run at every schedule point on every thread, replacing any previous hook.
    ///
    /// A replaced hook is intentionally never freed: another thread may still be running it.
    package static func install(_ body: @escaping @Sendable (SchedulePoint) -> Void) {
        current.store(Unmanaged.passRetained(Hook(body)), ordering: .releasing)
    }

    /// Removes the hook; points reached afterwards do nothing.
    package static func uninstall() {
        current.store(nil, ordering: .releasing)
    }

    /// Runs the installed hook, if any, for `point`.
    @inline(__always)
    package static func reach(_ point: SchedulePoint) {
        guard let hook = current.load(ordering: .acquiring) else { return }
        hook.takeUnretainedValue().body(point)
    }
}
