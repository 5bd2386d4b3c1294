/// The change-target cache: who hears about a change of a key is worked out on the key's first change and kept
/// (``ChangeTargets``) until the next insertion or removal, so a change usually costs the lock and a scan of a few
/// words, and no allocation.
extension ObservationTable {
    /// The cached ``ChangeTargets`` of one changed key (`nil`: nobody hears about it).
    struct Snapshot {
        let hash: UInt64
        let key: String
        let targets: ChangeTargets?
    }

    /// How many changed keys a table remembers targets for before it starts over.
    static let snapshotLimit = 64

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
    /// they were first registered, each with its observances in insertion order.
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

    /// Empties the snapshot cache and returns what it held, for the caller to release after unlocking.
    func takeSnapshots() -> [Snapshot] {
        if snapshots.isEmpty { return [] }
        let taken = snapshots
        snapshots = []
        return taken
    }
}
