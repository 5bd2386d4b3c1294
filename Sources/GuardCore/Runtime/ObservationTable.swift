import GuardCoreAtomics

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The observances registered on one object, and which key changes must announce which key paths.
///
/// Each ``KVOObject`` gets its own table the first time someone observes it; there is no process-wide lock. The
/// table publishes a 64-bit mask of the keys whose change has to be announced (``KeyBit``) into the object, so a
/// setter of a key nobody watches costs one atomic load and never takes this lock.
///
/// The layout is made for the common case, an object with a few observances of keys nothing else depends on: one
/// array of observances in registration order, each knowing its key path's ``KeyPathInfo``, and the mutex inline.
/// Dependent keys and dotted key paths add links (``Dependencies``) on the side. Who hears about a change of a key
/// is worked out on its first change and kept (``ChangeTargets``) until the next registration or removal, so a
/// change usually costs the lock, a scan of a few words, and no allocation.
///
/// Nothing user-owned is called or released under the table's lock: everything a method takes out of the table
/// (observances, which may hold a guard registration and its handler; stale snapshots) is handed back to the caller,
/// which lets it go after unlocking.
final class ObservationTable: @unchecked Sendable {
    // The first three stored properties are reached by address only (``InlineAtomicWords``, ``mutex``): keep them
    // first and in this order.
    /// Word 0: how many observances were ever inserted (the epoch of the newest one).
    private var insertionsWord = gca_word()
    /// Word 1: nonzero once the object deinitialized (``removeAll()``).
    private var objectGoneWord = gca_word()
    /// The table's mutex, inline: instances never move, so its address is stable. Touched only through ``mutex``.
    private var mutexStorage = InternalMutex.Storage()

    // The mutable state below is touched only under the lock and never across a call out of the table, so the
    // run-time exclusivity checks (`@exclusivity(unchecked)`) would only cost time on every change.

    /// Every observance, in registration order.
    @exclusivity(unchecked) private var observances: ContiguousArray<Observance> = []
    /// Who hears about a change of each key asked about since the last registration or removal.
    @exclusivity(unchecked) private var snapshots: [Snapshot] = []
    /// Links of key paths announced by keys other than themselves, and relays; `nil` while there are none.
    @exclusivity(unchecked) private var dependencies: Dependencies?
    /// Forwarders of this object's dotted observances that were replaced while a prior notification they relayed
    /// still waits for its change (see ``KeyPathForwarder/detach()``); empty in the common case.
    @exclusivity(unchecked) private var forwardersAwaitingChanges: [KeyPathForwarder] = []

    /// The cached ``ChangeTargets`` of one changed key (`nil`: nobody hears about it).
    fileprivate struct Snapshot {
        let hash: UInt64
        let key: String
        let targets: ChangeTargets?
    }

    /// How many changed keys a table remembers targets for before it starts over.
    private static let snapshotLimit = 64

    init() {
        InternalMutex.initialize(mutex)
        SchedulePoints.created(self)
    }

    deinit {
        InternalMutex.destroy(mutex)
    }

    private var mutex: UnsafeMutablePointer<InternalMutex.Storage> {
        (_getUnsafePointerToStoredProperties(self) + 2 * MemoryLayout<gca_word>.stride)
            .assumingMemoryBound(to: InternalMutex.Storage.self)
    }

    @inline(__always)
    private func locked<Result>(_ body: () -> Result) -> Result {
        InternalMutex.lock(mutex, ownedBy: self)
        defer { InternalMutex.unlock(mutex, ownedBy: self) }
        return body()
    }

    /// How many observances were ever inserted; read without the lock.
    var insertionCount: UInt64 {
        SchedulePoints.access(self, .observationTable, .read)
        return InlineAtomicWords.word(0, of: self).load(ordering: .acquiring)
    }

    // MARK: Registration

    /// What an insertion needs the caller to do after unlocking.
    struct Insertion {
        /// Dotted affecting key paths that now need a ``DependencyRelay`` (the caller creates them outside the lock
        /// and hands them to ``installRelay(_:for:)``).
        let relaysNeeded: [String]
        /// Snapshots the insertion made stale, released by the caller.
        fileprivate let discarded: [Snapshot]
    }

    /// Adds `observance` after every observance already registered and publishes the new key mask to `object`
    /// before any other registration can change it.
    func insert(_ observance: Observance, publishingTo object: KVOObject) -> Insertion {
        locked {
            let info = observance.info
            var relaysNeeded: [String] = []
            if !info.isAnnouncedOnlyByItself, !hasObservance(forKeyPath: info.keyPath, hash: info.hash) {
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
            } else if !info.isAnnouncedOnlyByItself, let dependencies {
                // Every registration that depends on a dotted key path makes sure a relay is installed before it
                // returns (the relay of the registration that came first may still be on its way).
                for trigger in info.triggers
                where trigger.isDotted && !(trigger.hash == info.hash && trigger.key.isSameKey(as: info.keyPath))
                    && !dependencies.hasRelay(for: trigger.key, hash: trigger.hash)
                {
                    relaysNeeded.append(trigger.key)
                }
            }
            let insertions = InlineAtomicWords.word(0, of: self)
            SchedulePoints.access(self, .observationTable, .write)
            let epoch = insertions.load(ordering: .relaxed) &+ 1
            observance.insertionEpoch = epoch
            insertions.store(epoch, ordering: .releasing)
            observances.append(observance)
            // The mask is written only under this lock, so reading it here and adding bits cannot lose an update.
            object.publish(mask: object.announcedKeys.load(ordering: .relaxed) | info.triggerMask)
            return Insertion(relaysNeeded: relaysNeeded, discarded: takeSnapshots())
        }
    }

    /// Keeps `relay` (the registration of a ``DependencyRelay``) for the dotted key path `keyPath` if a registered
    /// key path still depends on `keyPath` and no other relay was installed meanwhile. Returns whether it did; if
    /// not, the caller unregisters `relay`.
    func installRelay(_ relay: Observance, for keyPath: String) -> Bool {
        let hash = KeyHash.of(keyPath)
        return locked {
            guard let dependencies, isAnnounced(keyPath, hash: hash), !dependencies.hasRelay(for: keyPath, hash: hash)
            else { return false }
            dependencies.relays.append(Relay(hash: hash, keyPath: keyPath, registration: relay))
            DependencyRelay.notified(by: relay)?.isInstalled = true
            return true
        }
    }

    /// What a removal took out: the observance, and relays nobody depends on any more (the caller unregisters them).
    struct Removal {
        let observance: Observance
        let unusedRelays: [Observance]
        /// Snapshots the removal made stale, released by the caller.
        fileprivate let discarded: [Snapshot]
    }

    /// Removes and deactivates the most recently added observance for `keyPath` whose observer is at
    /// `observerAddress` and, if `context` is given, whose context matches, and publishes the new key mask to
    /// `object`.
    func remove(
        observerAddress: UInt, keyPath: String, context: UnsafeMutableRawPointer??, publishingTo object: KVOObject
    ) -> Removal? {
        let hash = KeyHash.of(keyPath)
        return locked {
            guard
                let index = observances.lastIndex(where: { candidate in
                    candidate.info.isKeyPath(keyPath, hash: hash) && candidate.observerAddress == observerAddress
                        && (context.map { candidate.context == $0 } ?? true)
                })
            else { return nil }
            return removeLocked(at: index, publishingTo: object)
        }
    }

    /// Removes a specific observance (used by forwarders, relays and the guard backend) and publishes the new key
    /// mask to `object`. `nil` if it was not registered.
    func remove(_ observance: Observance, publishingTo object: KVOObject) -> Removal? {
        locked {
            // From the newest end: the registration removed is most often a recent one.
            guard let index = observances.lastIndex(where: { $0 === observance }) else { return nil }
            return removeLocked(at: index, publishingTo: object)
        }
    }

    private func removeLocked(at index: Int, publishingTo object: KVOObject) -> Removal {
        let observance = observances.remove(at: index)
        _ = observance.deactivate()
        let info = observance.info
        var unusedRelays: [Observance] = []
        if !hasObservance(forKeyPath: info.keyPath, hash: info.hash) {
            if !info.isAnnouncedOnlyByItself, let dependencies {
                dependencies.links.removeAll { $0.keyPath.isKeyPath(info.keyPath, hash: info.hash) }
                unusedRelays = takeUnneededRelays(from: dependencies)
                if dependencies.links.isEmpty, dependencies.relays.isEmpty { self.dependencies = nil }
            }
            object.publish(mask: observances.reduce(0) { $0 | $1.info.triggerMask })
        }
        return Removal(observance: observance, unusedRelays: unusedRelays, discarded: takeSnapshots())
    }

    /// Everything ``removeAll()`` took out of the table.
    struct Clearance {
        /// Every observance, in the order of ``allObservances``.
        let observances: [Observance]
        fileprivate let discarded: (ContiguousArray<Observance>, [Snapshot], Dependencies?, [KeyPathForwarder])
    }

    /// Removes and deactivates every observance; the object is deinitializing.
    func removeAll() -> Clearance {
        locked {
            let all = Self.inKeyPathOrder(observances)
            for observance in all { _ = observance.deactivate() }
            for relay in dependencies?.relays ?? [] {
                DependencyRelay.notified(by: relay.registration)?.isInstalled = false
            }
            let discarded = (observances, takeSnapshots(), dependencies, forwardersAwaitingChanges)
            observances = []
            dependencies = nil
            forwardersAwaitingChanges = []
            SchedulePoints.access(self, .observationTable, .write)
            InlineAtomicWords.word(1, of: self).store(1, ordering: .releasing)
            return Clearance(observances: all, discarded: discarded)
        }
    }

    // MARK: Changes

    /// Who must hear about a change of `key` (whose ``KeyHash`` is `hash`), `nil` if nobody, and the insertion
    /// count it was taken at.
    func targets(forChangeOf key: String, hash: UInt64) -> (targets: ChangeTargets?, epoch: UInt64) {
        let (targets, epoch, discarded) = locked { () -> (ChangeTargets?, UInt64, [Snapshot]) in
            let epoch = insertionCount
            for snapshot in snapshots where snapshot.hash == hash && snapshot.key.isSameKey(as: key) {
                return (snapshot.targets, epoch, [])
            }
            let targets = buildTargets(forChangeOf: key, hash: hash)
            let discarded = snapshots.count >= Self.snapshotLimit ? takeSnapshots() : []
            snapshots.append(Snapshot(hash: hash, key: key, targets: targets))
            return (targets, epoch, discarded)
        }
        withExtendedLifetime(discarded) {}
        return (targets, epoch)
    }

    /// Lock held. The key paths a change of `key` announces, the key itself first, then the others in the order
    /// they were first registered, each with its observances in registration order.
    private func buildTargets(forChangeOf key: String, hash: UInt64) -> ChangeTargets? {
        var entries: [ChangeTargets.Entry] = []
        if let own = observances.first(where: { $0.info.isKeyPath(key, hash: hash) }),
            !own.isDotted || dependencies?.links.contains(where: { $0.links(key, hash: hash, to: key) }) == true
        {
            entries.append(entry(forKeyPath: own.keyPath, hash: hash, changedKey: key))
        }
        for link in dependencies?.links ?? [] where link.isTriggered(byKey: key, hash: hash) {
            if link.keyPath.isKeyPath(key, hash: hash) { continue }
            entries.append(entry(forKeyPath: link.keyPath.keyPath, hash: link.keyPath.hash, changedKey: key))
        }
        return entries.isEmpty ? nil : ChangeTargets(entries: entries)
    }

    private func entry(forKeyPath keyPath: String, hash: UInt64, changedKey: String) -> ChangeTargets.Entry {
        ChangeTargets.Entry(
            keyPath: keyPath, observances: observances.filter { $0.info.isKeyPath(keyPath, hash: hash) },
            isOwnKey: keyPath.isSameKey(as: changedKey))
    }

    // MARK: Dotted key path forwarders

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

    // MARK: Inspection

    /// Whether the table's object deinitialized. A table belongs to one object for good, so holding it is a way to
    /// recognize that object later without a weak reference to it (see ``RemovalHistory``).
    var objectIsDeinitialized: Bool {
        SchedulePoints.access(self, .observationTable, .read)
        return InlineAtomicWords.word(1, of: self).load(ordering: .acquiring) != 0
    }

    /// How many observances are registered, in all (the runtime's own relays and forwarders on this object
    /// included).
    var observanceCount: Int {
        locked { observances.count }
    }

    /// How many observances are registered for `keyPath`.
    func observanceCount(forKeyPath keyPath: String) -> Int {
        let hash = KeyHash.of(keyPath)
        return locked { observances.reduce(0) { $0 + ($1.info.isKeyPath(keyPath, hash: hash) ? 1 : 0) } }
    }

    /// A copy of every observance, grouped by key path in key path order, each group oldest first.
    var allObservances: [Observance] {
        Self.inKeyPathOrder(locked { observances })
    }

    // MARK: Helpers (lock held)

    private static func inKeyPathOrder(_ observances: ContiguousArray<Observance>) -> [Observance] {
        // Sorted, not registration order across key paths: this list becomes the `deallocatedWhileObserved` message
        // and observation info, which group by key path; the sort is stable, so each group stays oldest first.
        observances.enumerated().sorted { ($0.element.keyPath, $0.offset) < ($1.element.keyPath, $1.offset) }
            .map(\.element)
    }

    private func hasObservance(forKeyPath keyPath: String, hash: UInt64) -> Bool {
        observances.contains { $0.info.isKeyPath(keyPath, hash: hash) }
    }

    /// Whether a change of `key` announces some registered key path.
    private func isAnnounced(_ key: String, hash: UInt64) -> Bool {
        if let dependencies, dependencies.links.contains(where: { $0.isTriggered(byKey: key, hash: hash) }) {
            return true
        }
        return observances.contains { $0.info.isKeyPath(key, hash: hash) && !$0.isDotted }
    }

    /// Takes out the relays nothing needs any more. A relay is needed while its key path affects a key path that a
    /// registration other than a relay has, or the key path of another needed relay: relays whose key paths affect
    /// only each other's (`left` ← `right.value`, `right` ← `left.value`) do not keep each other.
    private func takeUnneededRelays(from dependencies: Dependencies) -> [Observance] {
        let relays = dependencies.relays
        guard !relays.isEmpty else { return [] }
        // Key paths whose dotted triggers must stay announced: first those registered by something other than a
        // relay, then the key paths of the relays they need, and so on.
        var affected: [KeyPathInfo] = []
        for link in dependencies.links where !affected.contains(where: { $0 === link.keyPath }) {
            let keyPath = link.keyPath
            let isRegisteredByOtherThanRelays = observances.contains {
                $0.info.isKeyPath(keyPath.keyPath, hash: keyPath.hash) && DependencyRelay.notified(by: $0) == nil
            }
            if isRegisteredByOtherThanRelays { affected.append(keyPath) }
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
                affected.append(relays[index].registration.info)
            }
        }
        return relays.indices.filter { !needed[$0] }.compactMap { index in
            dependencies.removeRelay(for: relays[index].keyPath, hash: relays[index].hash)
        }
    }

    /// Empties the snapshot cache and returns what it held, for the caller to release after unlocking.
    private func takeSnapshots() -> [Snapshot] {
        if snapshots.isEmpty { return [] }
        let taken = snapshots
        snapshots = []
        return taken
    }
}

extension ObservationTable {
    /// A registered key path announced by a change of a key other than itself: a key that affects it, or for a
    /// dotted key path its first key (and what affects that). A key path that is not dotted is announced by its own
    /// key without a link.
    fileprivate struct Link {
        let trigger: KeyPathInfo.Trigger
        let keyPath: KeyPathInfo

        func isTriggered(byKey key: String, hash: UInt64) -> Bool {
            trigger.hash == hash && trigger.key.isSameKey(as: key)
        }

        func links(_ key: String, hash: UInt64, to keyPath: String) -> Bool {
            isTriggered(byKey: key, hash: hash) && self.keyPath.keyPath.isSameKey(as: keyPath)
        }
    }

    /// The registration of the ``DependencyRelay`` that announces the dotted affecting key path `keyPath`.
    fileprivate struct Relay {
        let hash: UInt64
        let keyPath: String
        let registration: Observance
    }

    /// Links and relays, on the side: most objects have none.
    fileprivate final class Dependencies {
        @exclusivity(unchecked) var links: [Link] = []
        @exclusivity(unchecked) var relays: [Relay] = []

        func hasRelay(for keyPath: String, hash: UInt64) -> Bool {
            relays.contains { $0.hash == hash && $0.keyPath.isSameKey(as: keyPath) }
        }

        func removeRelay(for keyPath: String, hash: UInt64) -> Observance? {
            guard let index = relays.firstIndex(where: { $0.hash == hash && $0.keyPath.isSameKey(as: keyPath) }) else { return nil }
            let registration = relays.remove(at: index).registration
            DependencyRelay.notified(by: registration)?.isInstalled = false
            return registration
        }
    }
}
