/// Changes that reach a registration before its `.initial` notification: held back, and delivered by the observing
/// thread right after the initial handler returns, before `observe` returns.
///
/// A registration made with `.initial` is in the backend before its initial value is read (so no change that
/// completes after `observe` began is lost), and from then on a change made on another thread, or by the initial
/// handler itself, may reach it before or while its initial notification is delivered. Delivered at once, such a
/// change would come first, and the initial value after it: a handler that shows the last value it heard would end on
/// the initial one although the property has changed since. So until the initial notification and every change held
/// back meanwhile have been delivered, the registration holds changes (``RegistrationState/holdsChanges``): each one
/// that arrives is kept, under the controller's lock, in arrival order (``HeldChanges``), and the thread that made it
/// goes on without waiting (it never waits for the observing thread, so an initial handler that waits for that thread
/// cannot deadlock). Once the initial handler returned, the observing thread takes the kept changes out and delivers
/// them, in order, outside the lock, and again until none is left; it stops holding only under the lock with none
/// left, so a change arriving meanwhile is either kept and delivered by it, or (once it stopped) delivered by the thread
/// that made it, after everything kept. A change's prior notification and the change itself stay in that order too.
///
/// A registration that stops delivering meanwhile (removed by another thread, or by its own initial handler, or its
/// weakly held object gone) drops what it held: a removal inside the initial handler is clean, with no later
/// notification.
extension ControllerCore {
    /// Called by `registration`'s delivery, outside every lock, for a change that arrived while the registration
    /// held changes: keeps it for the observing thread and returns `true`, or returns `false` if the registration
    /// stopped holding or delivering meanwhile (the caller delivers it itself, or drops it).
    func holdBack(_ change: KeyValueChange, for registration: GuardRegistration) -> Bool {
        // Asked before locking: the tracer is a fault injector's code.
        let origin = HeldChangeTracing.tracer?.originOfHeldChange() ?? 0
        return lock.withLock(ownedBy: self) {
            guard registration.state.holdsChanges, registration.state.delivers else { return false }
            held.append(change, for: registration, origin: origin)
            return true
        }
    }

    /// The observing thread, right after `registration`'s initial notification: delivers the changes held back for
    /// it, in the order they arrived, to `observer` (which the caller holds) with `object` (the observed object, which
    /// the caller keeps alive), until none is left; then the registration stops holding. Drops them instead once the
    /// registration stopped delivering.
    func deliverHeldChanges(of registration: GuardRegistration, observer: AnyObject, object: AnyObject) {
        while true {
            // The batch is released after unlocking, delivered or dropped.
            let (batch, stopped) = lock.withLock(ownedBy: self) { () -> (ContiguousArray<HeldChanges.Entry>, Bool) in
                let batch = held.take(of: registration)
                guard !batch.isEmpty, registration.state.delivers else {
                    registration.state.stopHoldingChanges()
                    return (batch, true)
                }
                return (batch, false)
            }
            if stopped { return }
            for entry in batch {
                // Removed meanwhile (maybe by a handler of an earlier change): the rest is dropped, and the next turn
                // drops what arrived since and stops holding.
                guard registration.state.delivers else { break }
                SchedulePoints.reach(.guardBeforeHandler, registration)
                guard registration.state.delivers else { break }
                if let tracer = HeldChangeTracing.tracer {
                    tracer.deliverHeldChange(from: entry.origin) {
                        registration.invokeHandler(observer: observer, object: object, change: entry.change)
                    }
                } else {
                    registration.invokeHandler(observer: observer, object: object, change: entry.change)
                }
            }
        }
    }

    /// Takes out, under the lock, what `registration` held when it never got to deliver its initial notification (a
    /// backend that refused it after all): returned for the caller to release after unlocking.
    func takeHeldChanges(of registration: GuardRegistration) -> ContiguousArray<HeldChanges.Entry> {
        registration.state.stopHoldingChanges()
        return held.take(of: registration)
    }
}
