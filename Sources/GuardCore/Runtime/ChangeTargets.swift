/// Who hears about a change of one key on one object: the key paths it announces (the key itself first, then
/// dependent and dotted key paths), each with its observances in registration order and what they asked for. Prior
/// notifications go out in this order and change notifications in exactly the reverse one (see ``ChangePlan``).
///
/// Worked out under the table's lock on the key's first change and shared, unchanged, by every change until the next
/// registration or removal (see ``ObservationTable/targets(forChangeOf:hash:)``), so a change of an observed key
/// allocates nothing for it.
final class ChangeTargets {
    /// The observances of one key path and what they asked for. A class, so walking the entries of a change
    /// copies references, not the fields.
    final class Entry {
        let keyPath: String
        let observances: ContiguousArray<Observance>
        /// The same observances, unretained: `observances` keeps them alive for as long as the entry, so a delivery
        /// loop over these retains and releases nothing per observance.
        let unretainedObservances: ContiguousArray<Unmanaged<Observance>>
        /// The key path is the changed key itself (not a dependent or dotted one).
        let isOwnKey: Bool
        /// The union of the observances' options.
        let options: KeyValueObservingOptions
        /// Some observance has a dotted key path (and must be re-wired when the key changes).
        let hasDotted: Bool
        /// Some observance reports misuse, so a value that cannot be read is reported rather than read as nil.
        let reportsMisuse: Bool
        /// Whether every observance asked for the same values (`.new`, `.old`), so one change fits them all.
        let asksForSameValues: Bool
        /// Some observance leads to a dependent key's relay (see ``AnnouncementScope``).
        let leadsToRelay: Bool

        init(keyPath: String, observances: ContiguousArray<Observance>, isOwnKey: Bool) {
            var options: KeyValueObservingOptions = []
            var hasDotted = false
            var reportsMisuse = false
            let values: KeyValueObservingOptions = [.new, .old]
            let firstValues = observances.first?.options.intersection(values)
            var asksForSameValues = true
            var leadsToRelay = false
            for observance in observances {
                leadsToRelay = leadsToRelay || observance.leadsToRelay
                options.formUnion(observance.options)
                hasDotted = hasDotted || observance.isDotted
                reportsMisuse = reportsMisuse || !observance.isGuarded
                asksForSameValues = asksForSameValues && observance.options.intersection(values) == firstValues
            }
            self.asksForSameValues = asksForSameValues
            self.leadsToRelay = leadsToRelay
            self.keyPath = keyPath
            self.observances = observances
            self.unretainedObservances = ContiguousArray(observances.lazy.map { Unmanaged.passUnretained($0) })
            self.isOwnKey = isOwnKey
            self.options = options
            self.hasDotted = hasDotted
            self.reportsMisuse = reportsMisuse
        }

        var wantsOld: Bool { options.contains(.old) }
        var wantsNew: Bool { options.contains(.new) }
        var wantsPrior: Bool { options.contains(.prior) }
    }

    let entries: [Entry]
    /// The same entries, unretained (`entries` keeps them alive), for delivery loops that retain nothing per entry.
    let unretainedEntries: ContiguousArray<Unmanaged<Entry>>
    /// An entry of the key itself wants old values, and one of its observances reports misuse.
    let ownOldIsReported: Bool
    /// An entry of the key itself wants new values.
    let ownWantsNew: Bool
    /// An entry of the key itself wants new values, and one of its observances reports misuse.
    let ownNewIsReported: Bool
    /// An entry of another key path wants old values (read through key-value coding when the change begins).
    let othersWantOld: Bool
    /// Some entry has a dotted key path.
    let hasDotted: Bool
    /// Some entry wants prior notifications.
    let wantsPrior: Bool
    /// Some observance leads to a dependent key's relay: the change announces in an ``AnnouncementScope``.
    let reachesRelays: Bool

    init(entries: [Entry]) {
        self.entries = entries
        unretainedEntries = ContiguousArray(entries.lazy.map { Unmanaged.passUnretained($0) })
        ownOldIsReported = entries.contains { $0.isOwnKey && $0.wantsOld && $0.reportsMisuse }
        ownWantsNew = entries.contains { $0.isOwnKey && $0.wantsNew }
        ownNewIsReported = entries.contains { $0.isOwnKey && $0.wantsNew && $0.reportsMisuse }
        othersWantOld = entries.contains { !$0.isOwnKey && $0.wantsOld }
        hasDotted = entries.contains { $0.hasDotted }
        wantsPrior = entries.contains { $0.wantsPrior }
        reachesRelays = entries.contains { $0.leadsToRelay }
    }
}
