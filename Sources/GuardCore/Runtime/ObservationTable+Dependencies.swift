/// Dependency links and relays: a registered key path announced by a change of a key other than itself (a key that
/// affects it, or a dotted key path's first key) is linked to that key, and a dotted affecting key path gets a
/// ``DependencyRelay`` that announces its changes here. Most objects have none: the links live on the side.
extension ObservationTable {
    /// Lock held. Links the triggers of `info`, whose observance is being inserted, to its key path (once per key
    /// path), and returns the dotted triggers that still need a ``DependencyRelay``.
    func linkTriggers(of info: KeyPathInfo) -> [String] {
        guard !info.isAnnouncedOnlyByItself else { return [] }
        var relaysNeeded: [String] = []
        if !hasObservance(forKeyPath: info.keyPath, hash: info.hash) {
            let dependencies = self.dependencies ?? Dependencies()
            self.dependencies = dependencies
            // A key path is never linked to itself: for a dotted one, that trigger is a dependency looping back
            // (`peer` ← `peer.peer` puts `peer.peer` among the triggers of `peer.peer`), which its own first key
            // and forwarder already follow; announcing it would only echo.
            for trigger in info.triggers where !(trigger.hash == info.hash && trigger.key.isSameKey(as: info.keyPath)) {
                if trigger.isDotted, !dependencies.hasRelay(for: trigger.key, hash: trigger.hash) {
                    relaysNeeded.append(trigger.key)
                }
                dependencies.links.append(Link(trigger: trigger, keyPath: info))
            }
        } else if let dependencies {
            // Every observance that depends on a dotted key path makes sure a relay is installed before it
            // returns (the relay of the observance that came first may still be on its way).
            for trigger in info.triggers
            where trigger.isDotted && !(trigger.hash == info.hash && trigger.key.isSameKey(as: info.keyPath))
                && !dependencies.hasRelay(for: trigger.key, hash: trigger.hash)
            {
                relaysNeeded.append(trigger.key)
            }
        }
        return relaysNeeded
    }

    /// Lock held, after the last observance of `info`'s key path was removed: drops the links to that key path and
    /// returns the relays nothing needs any more (the caller removes them).
    func unlinkTriggers(of info: KeyPathInfo) -> [Observance] {
        guard !info.isAnnouncedOnlyByItself, let dependencies else { return [] }
        dependencies.links.removeAll { $0.keyPath.isKeyPath(info.keyPath, hash: info.hash) }
        let unusedRelays = takeUnneededRelays(from: dependencies)
        if dependencies.links.isEmpty, dependencies.relays.isEmpty { self.dependencies = nil }
        return unusedRelays
    }

    /// Keeps `relay` (the observance of a ``DependencyRelay``) for the dotted key path `keyPath` if a registered
    /// key path still depends on `keyPath` and no other relay was installed meanwhile. Returns whether it did; if
    /// not, the caller removes `relay`.
    func installRelay(_ relay: Observance, for keyPath: String) -> Bool {
        let hash = KeyHash.of(keyPath)
        return locked {
            guard let dependencies, isAnnounced(keyPath, hash: hash), !dependencies.hasRelay(for: keyPath, hash: hash)
            else { return false }
            dependencies.relays.append(Relay(hash: hash, keyPath: keyPath, observance: relay))
            DependencyRelay.notified(by: relay)?.isInstalled = true
            return true
        }
    }

    /// Whether a change of `key` announces some registered key path.
    func isAnnounced(_ key: String, hash: UInt64) -> Bool {
        if let dependencies, dependencies.links.contains(where: { $0.isTriggered(byKey: key, hash: hash) }) {
            return true
        }
        return observances.contains { $0.info.isKeyPath(key, hash: hash) && !$0.isDotted }
    }

    /// Takes out the relays nothing needs any more. A relay is needed while its key path affects a key path that an
    /// observance other than a relay has, or the key path of another needed relay: relays whose key paths affect
    /// only each other's (`left` ← `right.value`, `right` ← `left.value`) do not keep each other.
    private func takeUnneededRelays(from dependencies: Dependencies) -> [Observance] {
        let relays = dependencies.relays
        guard !relays.isEmpty else { return [] }
        // Key paths whose dotted triggers must stay announced: first those registered by something other than a
        // relay, then the key paths of the relays they need, and so on.
        var affected: [KeyPathInfo] = []
        for link in dependencies.links where !affected.contains(where: { $0 === link.keyPath }) {
            let keyPath = link.keyPath
            let isObservedByOtherThanRelays = observances.contains {
                $0.info.isKeyPath(keyPath.keyPath, hash: keyPath.hash) && DependencyRelay.notified(by: $0) == nil
            }
            if isObservedByOtherThanRelays { affected.append(keyPath) }
        }
        var needed = [Bool](repeating: false, count: relays.count)
        var next = 0
        while next < affected.count {
            let keyPath = affected[next]
            next += 1
            for link in dependencies.links
            where link.trigger.isDotted && link.keyPath.isKeyPath(keyPath.keyPath, hash: keyPath.hash) {
                guard
                    let index = relays.firstIndex(where: {
                        $0.hash == link.trigger.hash && $0.keyPath.isSameKey(as: link.trigger.key)
                    }), !needed[index]
                else { continue }
                needed[index] = true
                affected.append(relays[index].observance.info)
            }
        }
        return relays.indices.filter { !needed[$0] }.compactMap { index in
            dependencies.removeRelay(for: relays[index].keyPath, hash: relays[index].hash)
        }
    }

    /// A registered key path announced by a change of a key other than itself: a key that affects it, or for a
    /// dotted key path its first key (and what affects that). A key path that is not dotted is announced by its own
    /// key without a link.
    struct Link {
        let trigger: KeyPathInfo.Trigger
        let keyPath: KeyPathInfo

        func isTriggered(byKey key: String, hash: UInt64) -> Bool {
            trigger.hash == hash && trigger.key.isSameKey(as: key)
        }

        func links(_ key: String, hash: UInt64, to keyPath: String) -> Bool {
            isTriggered(byKey: key, hash: hash) && self.keyPath.keyPath.isSameKey(as: keyPath)
        }
    }

    /// The observance of the ``DependencyRelay`` that announces the dotted affecting key path `keyPath`.
    struct Relay {
        let hash: UInt64
        let keyPath: String
        let observance: Observance
    }

    /// Links and relays, on the side: most objects have none.
    final class Dependencies {
        @exclusivity(unchecked) var links: [Link] = []
        @exclusivity(unchecked) var relays: [Relay] = []

        func hasRelay(for keyPath: String, hash: UInt64) -> Bool {
            relays.contains { $0.hash == hash && $0.keyPath.isSameKey(as: keyPath) }
        }

        func removeRelay(for keyPath: String, hash: UInt64) -> Observance? {
            guard let index = relays.firstIndex(where: { $0.hash == hash && $0.keyPath.isSameKey(as: keyPath) }) else { return nil }
            let observance = relays.remove(at: index).observance
            DependencyRelay.notified(by: observance)?.isInstalled = false
            return observance
        }
    }
}
