import GuardCore

/// **Planted bug `bug-notify-live-storage`: notify walks the live registrations instead of a snapshot.** The
/// delivery looks for its registration by index in the table's live array (newest first), taking the lock for
/// each element, and calls the handler as soon as it finds it, then walks on. A registration filed meanwhile (by the
/// handler itself, or another thread between two elements) is inserted at the front and shifts the rest, so the
/// walk meets the same registration again and calls its handler twice for one change.
///
/// Breaks "handlers are called from a snapshot, outside the lock" and FBKVOController, which
/// copies its maps before walking them. The oracle sees `duplicate-delivery`.
final class NotifyIteratesLiveStorageController: BaselineController, @unchecked Sendable {
    override class func deliver(
        _ change: KeyValueChange, of object: StressObject, through bridge: PlantedBridge, in table: PlantedTable
    ) {
        var index = 0
        // The planted bug: each element read from live storage, no snapshot.
        while let registration = table.lock.withLock({ index < table.live.count ? table.live[index] : nil }) {
            if registration.bridge === bridge, table.lock.withLock({ registration.delivers }) {
                bridge.forward(change, of: object)
            }
            index += 1
        }
    }
}
