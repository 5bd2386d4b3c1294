import GuardCoreAtomics

/// The observances registered on one object, and which key changes must announce which key paths.
///
/// Each ``KVOObject`` gets its own table the first time someone observes it; there is no process-wide lock. The
/// table publishes a 64-bit mask of the keys whose change has to be announced (``KeyBit``) into the object, so a
/// setter of a key nobody watches costs one atomic load and never takes this lock.
///
/// Nothing user-owned is called or released under the table's lock: observers are held weakly, and everything a
/// method takes out of the table is handed back to the caller to act on after unlocking.
final class ObservationTable: @unchecked Sendable {
    /// The observances to notify for one key path, in registration order, as seen when a change began.
    struct Target {
        let keyPath: String
        let observances: [Observance]
    }

    /// Who must hear about a change, and the insertion count it was taken at.
    struct Snapshot {
        let targets: [Target]
        /// ``insertionCount`` when the snapshot was taken: observances with a later ``Observance/insertionEpoch``
        /// joined after it.
        let epoch: UInt64
    }

    // The first stored property is an atomic word reached through ``InlineAtomicWords`` only: keep it first.
    /// Word 0: how many observances were ever inserted (the epoch of the newest one).
    private var insertionsWord = gca_word()

    private let lock = Lock()
    /// Observances by the full key path they registered for, oldest first.
    private var observancesByKeyPath: [String: [Observance]] = [:]
    /// For each key whose change must be announced, the key paths to announce, the key itself first. A key here may
    /// be a dotted affecting key path of a dependent key (see ``DependencyRelay``).
    private var announcedKeyPaths: [String: [String]] = [:]
    /// For each registered key path, the keys that trigger it (see ``ObservedClassInfo/triggerKeys(for:of:)``).
    private var triggersByKeyPath: [String: [String]] = [:]
    /// ``targets(forChangeOf:)`` results, kept until the next registration or removal, so a change usually costs
    /// one dictionary lookup and no allocation.
    private var targetsByChangedKey: [String: [Target]] = [:]
    /// The relay observing each dotted affecting key path that some registered key path depends on: its
    /// registration, and the relay object itself (observances hold observers weakly; the table keeps relays alive).
    private var relays: [String: (registration: Observance, relay: DependencyRelay)] = [:]
    private var count = 0

    /// How many observances were ever inserted; read without the lock.
    var insertionCount: UInt64 {
        InlineAtomicWords.word(0, of: self).load(ordering: .acquiring)
    }

    // MARK: Registration

    /// Adds `observance` after the observances already registered for its key path and publishes the new key mask
    /// to `object` before any other registration can change it. Returns the dotted affecting key paths that now
    /// need a ``DependencyRelay`` (the caller creates them outside the lock and hands them to ``installRelay(_:for:)``).
    func insert(_ observance: Observance, triggers: [String], publishingTo object: KVOObject) -> [String] {
        lock.withLock {
            let keyPath = observance.keyPath
            var relaysNeeded: [String] = []
            if observancesByKeyPath[keyPath] == nil {
                triggersByKeyPath[keyPath] = triggers
                for trigger in triggers {
                    if KeyPathSyntax.isDotted(trigger), announcedKeyPaths[trigger] == nil, relays[trigger] == nil {
                        relaysNeeded.append(trigger)
                    }
                    if trigger == keyPath {
                        announcedKeyPaths[trigger, default: []].insert(keyPath, at: 0)
                    } else {
                        announcedKeyPaths[trigger, default: []].append(keyPath)
                    }
                }
            }
            let insertions = InlineAtomicWords.word(0, of: self)
            let epoch = insertions.load(ordering: .relaxed) &+ 1
            observance.insertionEpoch = epoch
            insertions.store(epoch, ordering: .releasing)
            observancesByKeyPath[keyPath, default: []].append(observance)
            count += 1
            targetsByChangedKey.removeAll(keepingCapacity: true)
            object.publish(mask: mask())
            return relaysNeeded
        }
    }

    /// Keeps `relay` and its `registration` for the dotted key path `keyPath` if a registered key path still depends
    /// on `keyPath` and no other relay was installed meanwhile. Returns whether it did; if not, the caller
    /// unregisters `registration`.
    func installRelay(_ registration: Observance, keeping relay: DependencyRelay, for keyPath: String) -> Bool {
        lock.withLock {
            guard announcedKeyPaths[keyPath] != nil, relays[keyPath] == nil else { return false }
            relays[keyPath] = (registration, relay)
            return true
        }
    }

    /// What a removal took out: the observance, and relays nobody depends on any more (the caller unregisters them).
    struct Removal {
        let observance: Observance
        let unusedRelays: [Observance]
    }

    /// Removes and deactivates the most recently added observance for `keyPath` whose observer is at
    /// `observerAddress` and, if `context` is given, whose context matches, and publishes the new key mask to
    /// `object`.
    func remove(
        observerAddress: UInt, keyPath: String, context: UnsafeMutableRawPointer??, publishingTo object: KVOObject
    ) -> Removal? {
        lock.withLock {
            guard let list = observancesByKeyPath[keyPath],
                let index = list.lastIndex(where: { candidate in
                    candidate.observerAddress == observerAddress
                        && (context.map { candidate.context == $0 } ?? true)
                })
            else { return nil }
            return removeLocked(at: index, of: keyPath, publishingTo: object)
        }
    }

    /// Removes a specific observance (used by forwarders, relays and the guard backend) and publishes the new key
    /// mask to `object`. `nil` if it was not registered.
    func remove(_ observance: Observance, publishingTo object: KVOObject) -> Removal? {
        lock.withLock {
            guard let list = observancesByKeyPath[observance.keyPath],
                let index = list.firstIndex(where: { $0 === observance })
            else { return nil }
            return removeLocked(at: index, of: observance.keyPath, publishingTo: object)
        }
    }

    private func removeLocked(at index: Int, of keyPath: String, publishingTo object: KVOObject) -> Removal {
        var list = observancesByKeyPath[keyPath]!
        let observance = list.remove(at: index)
        _ = observance.deactivate()
        count -= 1
        targetsByChangedKey.removeAll(keepingCapacity: true)
        var unusedRelays: [Observance] = []
        if list.isEmpty {
            observancesByKeyPath[keyPath] = nil
            unusedRelays = forgetKeyPath(keyPath)
        } else {
            observancesByKeyPath[keyPath] = list
        }
        object.publish(mask: mask())
        return Removal(observance: observance, unusedRelays: unusedRelays)
    }

    /// Removes and deactivates every observance; the object is deinitializing. Returns them in the order of
    /// ``allObservances`` (key path order, each group oldest first).
    func removeAll() -> [Observance] {
        lock.withLock {
            // Sorted, not `values`: dictionary order changes from run to run, and this list becomes the
            // `deallocatedWhileObserved` message, which must be reproducible.
            let all = observancesByKeyPath.keys.sorted().flatMap { observancesByKeyPath[$0]! }
            for observance in all { _ = observance.deactivate() }
            observancesByKeyPath = [:]
            announcedKeyPaths = [:]
            triggersByKeyPath = [:]
            targetsByChangedKey = [:]
            relays = [:]
            count = 0
            return all
        }
    }

    // MARK: Changes

    /// The observances to notify when `key` changes, grouped by the key path they registered for (empty if none),
    /// and the insertion count they were taken at.
    func targets(forChangeOf key: String) -> Snapshot {
        lock.withLock {
            let epoch = insertionCount
            if let cached = targetsByChangedKey[key] { return Snapshot(targets: cached, epoch: epoch) }
            guard let keyPaths = announcedKeyPaths[key] else { return Snapshot(targets: [], epoch: epoch) }
            let targets = keyPaths.compactMap { keyPath in
                observancesByKeyPath[keyPath].map { Target(keyPath: keyPath, observances: $0) }
            }
            targetsByChangedKey[key] = targets
            return Snapshot(targets: targets, epoch: epoch)
        }
    }

    // MARK: Dotted key path forwarders

    /// Makes `forwarder` (or none) the forwarder of the dotted `observance` if it is still registered and no
    /// re-wiring began after the one at `generation`. Returns whether it did, and the forwarder it replaced (the
    /// caller detaches it outside the lock). See ``KeyPathForwarder/rewire(_:of:)``.
    func install(
        _ forwarder: KeyPathForwarder?, on observance: Observance, generation: UInt64
    ) -> (installed: Bool, replaced: KeyPathForwarder?) {
        lock.withLock {
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
        lock.withLock {
            let forwarder = observance.forwarder
            forwarder?.isInstalled = false
            observance.forwarder = nil
            return forwarder
        }
    }

    /// The forwarder of a dotted-path observance.
    func forwarder(of observance: Observance) -> KeyPathForwarder? {
        lock.withLock { observance.forwarder }
    }

    // MARK: Inspection

    /// How many observances are registered, in all (the runtime's own relays and forwarders on this object
    /// included).
    var observanceCount: Int {
        lock.withLock { count }
    }

    /// How many observances are registered for `keyPath`.
    func observanceCount(forKeyPath keyPath: String) -> Int {
        lock.withLock { observancesByKeyPath[keyPath]?.count ?? 0 }
    }

    /// A copy of every observance, grouped by key path in key path order, each group oldest first.
    var allObservances: [Observance] {
        lock.withLock {
            observancesByKeyPath.keys.sorted().flatMap { observancesByKeyPath[$0]! }
        }
    }

    /// Lock held. Stops announcing `keyPath`; returns relays of dotted affecting key paths nobody depends on now.
    private func forgetKeyPath(_ keyPath: String) -> [Observance] {
        var unused: [Observance] = []
        for trigger in triggersByKeyPath.removeValue(forKey: keyPath) ?? [] {
            announcedKeyPaths[trigger]?.removeAll { $0 == keyPath }
            if announcedKeyPaths[trigger]?.isEmpty == true {
                announcedKeyPaths[trigger] = nil
                if let relay = relays.removeValue(forKey: trigger) { unused.append(relay.registration) }
            }
        }
        return unused
    }

    private func mask() -> UInt64 {
        announcedKeyPaths.keys.reduce(0) { $0 | KeyBit.of($1) }
    }
}
