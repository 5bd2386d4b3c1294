/// Dotted-path forwarder bookkeeping: which ``KeyPathForwarder`` relays each dotted observance's changes from the
/// object along its path, and the replaced forwarders that still wait for the change of a prior notification they
/// relayed.
extension ObservationTable {
    /// Makes `forwarder` (or none) the forwarder of the dotted `observance` if it is still registered and no
    /// re-wiring began after the one at `generation`. Returns whether it did, and the forwarder it replaced (the
    /// caller detaches it outside the lock). See ``KeyPathForwarder/rewire(_:of:)``.
    func install(
        _ forwarder: KeyPathForwarder?, on observance: Observance, generation: UInt64
    ) -> (installed: Bool, replaced: KeyPathForwarder?) {
        locked {
            SchedulePoints.access(observance, .rewireGeneration, .read)
            guard observance.isActive, observance.rewireGeneration.load(ordering: .acquiring) == generation else {
                return (false, nil)
            }
            let replaced = observance.forwarder
            replaced?.isInstalled = false
            forwarder?.isInstalled = true
            observance.forwarder = forwarder
            return (true, replaced)
        }
    }

    /// Takes the forwarder of a dotted-path observance out, leaving none.
    func detachForwarder(of observance: Observance) -> KeyPathForwarder? {
        locked {
            let forwarder = observance.forwarder
            forwarder?.isInstalled = false
            observance.forwarder = nil
            return forwarder
        }
    }

    /// The forwarder of a dotted-path observance.
    func forwarder(of observance: Observance) -> KeyPathForwarder? {
        locked { observance.forwarder }
    }

    /// Keeps `forwarder`, replaced while a prior notification it relayed waits for its change, so a re-wiring of its
    /// observance back to its target can take it back (see ``takeForwarderAwaitingChanges(of:on:)``).
    func noteAwaitingChanges(_ forwarder: KeyPathForwarder) {
        locked { forwardersAwaitingChanges.append(forwarder) }
    }

    /// Forgets `forwarder` as one awaiting changes (its detach finished, or was never deferred). The caller releases
    /// it after unlocking, so the table hands it back.
    func forgetAwaitingChanges(_ forwarder: KeyPathForwarder) -> [KeyPathForwarder] {
        locked {
            guard forwardersAwaitingChanges.contains(where: { $0 === forwarder }) else { return [] }
            let forgotten = forwardersAwaitingChanges.filter { $0 === forwarder }
            forwardersAwaitingChanges.removeAll { $0 === forwarder }
            return forgotten
        }
    }

    /// Takes out the forwarder of `observance` on `target` that awaits changes, if there is one.
    func takeForwarderAwaitingChanges(of observance: Observance, on target: KVOObject) -> KeyPathForwarder? {
        locked {
            guard !forwardersAwaitingChanges.isEmpty,
                let index = forwardersAwaitingChanges.firstIndex(where: { $0.relays(for: observance, from: target) })
            else { return nil }
            return forwardersAwaitingChanges.remove(at: index)
        }
    }
}
