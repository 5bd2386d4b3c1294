/// The observances registered on one object, and which key changes must announce which key paths.
///
/// Each ``KVOObject`` gets its own table the first time someone observes it; there is no process-wide lock. The
/// table publishes a 64-bit mask of the keys whose change has to be announced (``KeyBit``) into the object, so a
/// setter of a key nobody watches costs one atomic load and never takes this lock.
final class ObservationTable: @unchecked Sendable {
    /// The observances to notify for one key path, in registration order, as seen when a change began.
    struct Target {
        let keyPath: String
        let observances: [Observance]
    }

    private let lock = Lock()
    /// Observances by the full key path they registered for, oldest first.
    private var observancesByKeyPath: [String: [Observance]] = [:]
    /// For each key whose change must be announced, the key paths to announce, the key itself first.
    private var announcedKeyPaths: [String: [String]] = [:]
    /// For each registered key path, the keys that trigger it (see ``ObservedClassInfo/triggerKeys(for:of:)``).
    private var triggersByKeyPath: [String: [String]] = [:]
    /// ``targets(forChangeOf:)`` results, kept until the next registration or removal, so a change usually costs
    /// one dictionary lookup and no allocation.
    private var targetsByChangedKey: [String: [Target]] = [:]
    private var count = 0

    /// Adds `observance` after the observances already registered for its key path and publishes the new key mask
    /// to `object` before any other registration can change it.
    func insert(_ observance: Observance, triggers: [String], publishingTo object: KVOObject) {
        lock.withLock {
            let keyPath = observance.keyPath
            if observancesByKeyPath[keyPath] == nil {
                triggersByKeyPath[keyPath] = triggers
                for trigger in triggers {
                    if trigger == keyPath {
                        announcedKeyPaths[trigger, default: []].insert(keyPath, at: 0)
                    } else {
                        announcedKeyPaths[trigger, default: []].append(keyPath)
                    }
                }
            }
            observancesByKeyPath[keyPath, default: []].append(observance)
            count += 1
            targetsByChangedKey.removeAll(keepingCapacity: true)
            object.publish(mask: mask())
        }
    }

    /// Removes and deactivates the most recently added observance for `keyPath` whose observer is at
    /// `observerAddress` and, if `context` is given, whose context matches, and publishes the new key mask to
    /// `object`. Returns the removed observance.
    func remove(
        observerAddress: UInt, keyPath: String, context: UnsafeMutableRawPointer??, publishingTo object: KVOObject
    ) -> Observance? {
        lock.withLock {
            guard var list = observancesByKeyPath[keyPath],
                let index = list.lastIndex(where: { candidate in
                    candidate.observerAddress == observerAddress
                        && (context.map { candidate.context == $0 } ?? true)
                })
            else { return nil }
            let observance = list.remove(at: index)
            _ = observance.deactivate()
            count -= 1
            targetsByChangedKey.removeAll(keepingCapacity: true)
            if list.isEmpty {
                observancesByKeyPath[keyPath] = nil
                forgetKeyPath(keyPath)
            } else {
                observancesByKeyPath[keyPath] = list
            }
            object.publish(mask: mask())
            return observance
        }
    }

    /// Removes a specific observance (used by forwarders and the guard backend) and publishes the new key mask to
    /// `object`. Returns whether it was registered.
    func remove(_ observance: Observance, publishingTo object: KVOObject) -> Bool {
        lock.withLock {
            guard var list = observancesByKeyPath[observance.keyPath],
                let index = list.firstIndex(where: { $0 === observance })
            else { return false }
            list.remove(at: index)
            _ = observance.deactivate()
            count -= 1
            targetsByChangedKey.removeAll(keepingCapacity: true)
            if list.isEmpty {
                observancesByKeyPath[observance.keyPath] = nil
                forgetKeyPath(observance.keyPath)
            } else {
                observancesByKeyPath[observance.keyPath] = list
            }
            object.publish(mask: mask())
            return true
        }
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
            count = 0
            return all
        }
    }

    /// The observances to notify when `key` changes, grouped by the key path they registered for. Empty if none.
    func targets(forChangeOf key: String) -> [Target] {
        lock.withLock {
            if let cached = targetsByChangedKey[key] { return cached }
            guard let keyPaths = announcedKeyPaths[key] else { return [] }
            let targets = keyPaths.compactMap { keyPath in
                observancesByKeyPath[keyPath].map { Target(keyPath: keyPath, observances: $0) }
            }
            targetsByChangedKey[key] = targets
            return targets
        }
    }

    /// Sets the forwarder of a dotted-path observance if it is still registered and has none; returns whether it did.
    func attach(_ forwarder: KeyPathForwarder, to observance: Observance) -> Bool {
        lock.withLock {
            guard observance.isActive, observance.forwarder == nil else { return false }
            observance.forwarder = forwarder
            return true
        }
    }

    /// Takes the forwarder of a dotted-path observance out, leaving none.
    func detachForwarder(of observance: Observance) -> KeyPathForwarder? {
        lock.withLock {
            let forwarder = observance.forwarder
            observance.forwarder = nil
            return forwarder
        }
    }

    /// The forwarder of a dotted-path observance.
    func forwarder(of observance: Observance) -> KeyPathForwarder? {
        lock.withLock { observance.forwarder }
    }

    /// How many observances are registered, in all.
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

    private func forgetKeyPath(_ keyPath: String) {
        for trigger in triggersByKeyPath.removeValue(forKey: keyPath) ?? [] {
            announcedKeyPaths[trigger]?.removeAll { $0 == keyPath }
            if announcedKeyPaths[trigger]?.isEmpty == true { announcedKeyPaths[trigger] = nil }
        }
    }

    private func mask() -> UInt64 {
        announcedKeyPaths.keys.reduce(0) { $0 | KeyBit.of($1) }
    }
}
