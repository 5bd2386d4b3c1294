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
/// The table has four jobs, one file each: the observances in insertion order and the key mask (here); the
/// change-target cache (`ObservationTable+ChangeTargets.swift`); the forwarders of dotted key paths
/// (`ObservationTable+Forwarders.swift`); and dependency links and relays (`ObservationTable+Dependencies.swift`),
/// kept on the side because most objects have none. A change usually costs the inline lock, a scan of a few words,
/// and no allocation.
///
/// Nothing user-owned is called or released under the table's lock: everything a method takes out of the table
/// (observances, which may hold a guard registration and its handler; stale snapshots) is handed back to the caller,
/// which lets it go after unlocking.
final class ObservationTable: @unchecked Sendable {
    // Leading words, then the inline lock: see ``InlineAtomicWords``.
    /// Word 0: how many observances were ever inserted (the epoch of the newest one).
    private var insertionsWord = gca_word()
    /// Word 1: nonzero once the object deinitialized (``removeAll()``).
    private var objectGoneWord = gca_word()
    /// The table's lock, inline (see ``LockOperations``).
    private var lockPrimitive = LockPrimitive()

    // The mutable state below is touched only under the lock and never across a call out of the table, so the
    // run-time exclusivity checks (`@exclusivity(unchecked)`) would only cost time on every change.

    /// Every observance, in insertion order.
    @exclusivity(unchecked) var observances: ContiguousArray<Observance> = []
    /// Who hears about a change of each key asked about since the last insertion or removal.
    @exclusivity(unchecked) var snapshots: [Snapshot] = []
    /// Links of key paths announced by keys other than themselves, and relays; `nil` while there are none.
    @exclusivity(unchecked) var dependencies: Dependencies?
    /// Forwarders of this object's dotted observances that were replaced while a prior notification they relayed
    /// still waits for its change (see ``KeyPathForwarder/detach()``); empty in the common case.
    @exclusivity(unchecked) var forwardersAwaitingChanges: [KeyPathForwarder] = []

    init() {
        LockOperations.initialize(primitive)
        SchedulePoints.created(self)
        SchedulePoints.guards(self, .observationTable)
    }

    deinit {
        LockOperations.destroy(primitive)
    }

    private var primitive: UnsafeMutablePointer<LockPrimitive> {
        LockOperations.primitive(of: self, afterWords: 2)
    }

    @inline(__always)
    func locked<Result>(_ body: () -> Result) -> Result {
        let primitive = primitive
        LockOperations.lock(primitive, announcedAs: self)
        defer { LockOperations.unlock(primitive, announcedAs: self) }
        return body()
    }

    /// How many observances were ever inserted; read without the lock.
    var insertionCount: UInt64 {
        SchedulePoints.access(self, .observationTable, .read)
        return InlineAtomicWords.word(0, of: self).load(ordering: .acquiring)
    }

    // MARK: Observances and the key mask

    /// What an insertion needs the caller to do after unlocking.
    struct Insertion {
        /// Dotted affecting key paths that now need a ``DependencyRelay`` (the caller creates them outside the lock
        /// and hands them to ``installRelay(_:for:)``).
        let relaysNeeded: [String]
        /// Snapshots the insertion made stale, released by the caller.
        let discarded: [Snapshot]
    }

    /// Adds `observance` after every observance already registered and publishes the new key mask to `object`
    /// before any other observance can change it.
    func insert(_ observance: Observance, publishingTo object: KVOObject) -> Insertion {
        locked {
            let info = observance.info
            // Most key paths are announced only by themselves: no links, and no call.
            let relaysNeeded = info.isAnnouncedOnlyByItself ? [] : linkTriggers(of: info)
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

    /// What a removal took out: the observance, and relays nobody depends on any more (the caller removes them).
    struct Removal {
        let observance: Observance
        let unusedRelays: [Observance]
        /// Snapshots the removal made stale, released by the caller.
        let discarded: [Snapshot]
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
            // From the newest end: the observance removed is most often a recent one.
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
            if !info.isAnnouncedOnlyByItself, dependencies != nil { unusedRelays = unlinkTriggers(of: info) }
            object.publish(mask: observances.reduce(0) { $0 | $1.info.triggerMask })
        }
        return Removal(observance: observance, unusedRelays: unusedRelays, discarded: takeSnapshots())
    }

    /// Everything ``removeAll()`` took out of the table.
    struct Clearance {
        /// Every observance, in the order of ``allObservances``.
        let observances: [Observance]
        let discarded: (ContiguousArray<Observance>, [Snapshot], Dependencies?, [KeyPathForwarder])
    }

    /// Removes and deactivates every observance; the object is deinitializing.
    func removeAll() -> Clearance {
        locked {
            let all = Self.inKeyPathOrder(observances)
            for observance in all { _ = observance.deactivate() }
            for relay in dependencies?.relays ?? [] {
                DependencyRelay.notified(by: relay.observance)?.isInstalled = false
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
        // Sorted, not insertion order across key paths: this list becomes the `deallocatedWhileObserved` message
        // and observation info, which group by key path; the sort is stable, so each group stays oldest first.
        observances.enumerated().sorted { ($0.element.keyPath, $0.offset) < ($1.element.keyPath, $1.offset) }
            .map(\.element)
    }

    func hasObservance(forKeyPath keyPath: String, hash: UInt64) -> Bool {
        observances.contains { $0.info.isKeyPath(keyPath, hash: hash) }
    }
}
