extension ControllerCore {
    /// Registrations taken out of the table under the lock (by a bulk removal), and what must happen to them after
    /// unlocking: unregistering from the backend, then releasing everything kept, both in registration order (see
    /// ``releaseInRegistrationOrder()``).
    struct Retirement {
        /// One retired registration and what taking it out of the backend needs.
        private struct Entry {
            let registration: GuardRegistration
            /// The registration's ``GuardRegistration/sequence``, kept here so sorting reads no registration.
            let sequence: UInt64
            /// Set to `.none` once released (see ``releaseInRegistrationOrder()``).
            var unregistration: Unregistration
            /// A weakly held object, loaded under the lock so it stays alive until it is unregistered from; `nil`
            /// for a strongly held one (its registration holds it) and for one that is gone (nothing to remove the
            /// registration from).
            var loadedObject: AnyObject?

            /// The object to unregister from, if it lives.
            var object: AnyObject? {
                loadedObject ?? registration.retainedObject
            }
        }

        let result: UnobserveResult
        /// Whether the removal began after the controller's observer was gone.
        let observerGone: Bool
        /// Newest first, so taking them from the end gives them in the order they were made.
        private var entries: ContiguousArray<Entry> = []
        /// Released after unlocking, before the registrations: objects a sweep of the removal history found alive
        /// (see ``RemovalHistory/remember(_:of:object:keepingSurvivorsIn:)``), and registrations of a dead object
        /// that had the address of the object a removal was about.
        var releasedLater = DeferredReleases()

        /// A retirement with `result`, by a removal that began after the observer was gone if `observerGone`, with
        /// room for `expectedCount` registrations.
        init(result: UnobserveResult, observerGone: Bool = false, expecting expectedCount: Int = 0) {
            self.result = result
            self.observerGone = observerGone
            if expectedCount > 0 { entries.reserveCapacity(expectedCount) }
        }

        /// How many registrations it retired.
        var count: Int { entries.count }

        /// Lock held. Retires `registration` (see ``ControllerCore/retire(_:)``), taking over the caller's reference.
        /// Its object is `object` when the caller has it (alive); otherwise a weakly held object is loaded (`nil` once
        /// it is gone, or running its deinit).
        mutating func retire(_ registration: consuming GuardRegistration, object: AnyObject? = nil) {
            let unregistration = ControllerCore.retire(registration, observerGone: observerGone)
            let loadedObject = !registration.retainsObservedObject ? (object ?? registration.object) : nil
            let sequence = registration.sequence
            entries.append(
                Entry(
                    registration: registration, sequence: sequence, unregistration: unregistration,
                    loadedObject: loadedObject))
        }

        /// Lock held. Puts the retired registrations newest first (a bulk removal takes them in table order).
        mutating func sortNewestFirst() {
            entries.sort { $0.sequence > $1.sequence }
        }

        /// Lock held. Calls `body` with each retired registration and its object (if it lives), in the order they
        /// were made.
        func forEachInRegistrationOrder(_ body: (GuardRegistration, AnyObject?) -> Void) {
            for index in entries.indices.reversed() { body(entries[index].registration, entries[index].object) }
        }

        /// Lock released. Unregisters from the backend, in registration order.
        func unregister(from core: ControllerCore) {
            for index in entries.indices.reversed() where !entries[index].unregistration.isNone {
                if let object = entries[index].loadedObject {
                    SchedulePoints.reach(.guardBeforeUnregister, entries[index].registration)
                    core.unregister(entries[index].registration, entries[index].unregistration, from: object)
                } else if let object = entries[index].registration.retainedObjectReference {
                    // Held by the registration, which this retirement holds.
                    SchedulePoints.reach(.guardBeforeUnregister, entries[index].registration)
                    object._withUnsafeGuaranteedRef {
                        core.unregister(entries[index].registration, entries[index].unregistration, from: $0)
                    }
                }
            }
        }

        /// Lock released, after ``unregister(from:)``. Releases the retired registrations one by one in the order
        /// they were made, so the deinits those releases set off (of handlers, what they captured, observed objects
        /// the controller retained) run in an order that does not depend on object addresses: a run replayed under
        /// the same schedule takes the same steps. Everything else kept (``releasedLater``, then the backend handles
        /// and loaded objects, in registration order) is released first, while each registration is still held here,
        /// so none of those releases is the last one of a retired registration.
        mutating func releaseInRegistrationOrder() {
            releasedLater.release()
            for index in entries.indices.reversed() {
                if entries[index].loadedObject != nil { entries[index].loadedObject = nil }
                if case .handle = entries[index].unregistration { entries[index].unregistration = .none }
            }
            while let entry = entries.popLast() {
                _ = consume entry
            }
        }
    }
}
