import Foundation

/// A change that has begun (prior notifications sent) and awaits its end (store done, change notifications due).
///
/// Its ``ChangeTargets`` are a snapshot taken under the object's table lock; everything after that, reading values
/// and calling observers, happens outside every lock. A value type that holds the shared snapshot, the old values and
/// nothing else, so the notification path makes no allocation for it (unless a dependent key path wants its old
/// value). It holds no strong reference to the object (pending manual changes must not keep it alive): the object is
/// passed to `begin(on:readOwnValue:)` and `end(on:readOwnValue:)`, and its table, which the object keeps for its
/// whole life, is held unretained.
///
/// Each observance gets one ``KeyValueChange`` tailored to its options; observances of one key path that asked for
/// the same values share one.
///
/// **Order.** Prior notifications go out key path by key path in the order of ``ChangeTargets`` (the changed key
/// first), each key path's observances oldest registration first; change notifications go out in exactly the reverse
/// order (the last key path first, each key path's observances newest first), as Foundation pops its pending
/// notifications: each observer's prior / change pair nests inside those of the observers notified before it. A
/// dependent key path that several declared dependencies lead to is announced once (see ``AnnouncementScope``).
///
/// **Registrations that join while the change is under way.** A guarded registration (one the guard made, see
/// ``Observance/isGuarded``) inserted after the snapshot (a *late joiner*) is notified at the end as well, with the
/// old value when the change knows it (the changed key's own old value is always kept for that, and for other key
/// paths the one read at the start when their key path was already observed), otherwise without one. So a change
/// that completes after a registration exists is never lost between an `.initial` value read after the insert and
/// the notifications that follow (see ``ObservationController``), also when it began with nobody to notify
/// (``endUnplanned(on:key:hash:kind:indexes:insertedAfter:readOwnValue:)``). An application's own registration keeps
/// Foundation's behaviour: one added between a `willChange` and its `didChange` is not part of that change.
struct ChangePlan {
    let key: String
    private let keyHash: UInt64
    private let kind: KeyValueChange.Kind
    private let indexes: IndexSet?
    private let table: Unmanaged<ObservationTable>
    private let targets: ChangeTargets
    private let epoch: UInt64
    /// The changed key's own value before the change (read at `begin(on:readOwnValue:)`), for its own entries and
    /// for late joiners: as a change carries it for a setting (`nil` boxed), the raw value for a to-many change.
    private var ownOldValue: Any?
    /// Old values of the other key paths, by entry (read at `begin(on:readOwnValue:)`); empty unless one wants it.
    private var otherOldValues: [Any?] = []
    /// What a set mutation, or a change a relay takes part in, needs besides; `nil` for every other change, so the
    /// common one carries (and releases) one empty reference for all of it.
    private var extras: Extras?

    /// Snapshots who must hear about a change of `key` (whose ``KeyHash`` is `hash`) on `object`; `nil` when nobody
    /// must. `isRelayed` for a change a dependent key's relay begins.
    init?(
        object: KVOObject, key: String, hash: UInt64, kind: KeyValueChange.Kind, indexes: IndexSet?,
        setMutation: SetMutation? = nil, isRelayed: Bool = false
    ) {
        guard let table = object.existingTableReference else { return nil }
        let (targets, epoch) = table._withUnsafeGuaranteedRef { $0.targets(forChangeOf: key, hash: hash) }
        guard let targets else { return nil }
        self.init(
            table: table, targets: targets, epoch: epoch, key: key, hash: hash, kind: kind, indexes: indexes,
            setMutation: setMutation, isRelayed: isRelayed)
    }

    /// A change of `key` on the object whose table is `table`, to `targets` (taken at `epoch`).
    init(
        table: Unmanaged<ObservationTable>, targets: ChangeTargets, epoch: UInt64, key: String, hash: UInt64,
        kind: KeyValueChange.Kind, indexes: IndexSet?, setMutation: SetMutation? = nil, isRelayed: Bool = false
    ) {
        if isRelayed || setMutation != nil { extras = Extras(isRelayed: isRelayed, setMutation: setMutation) }
        self.key = key
        self.keyHash = hash
        self.kind = kind
        self.indexes = indexes
        self.table = table
        self.targets = targets
        self.epoch = epoch
    }

    /// Ends a change of `key` on `object` that began with nobody to notify (no plan, so nothing was snapshot or read
    /// then), `epoch` being its table's insertion count when it began (0 if it had none): re-wires the dotted
    /// observances inserted since, and notifies every one inserted since that joins changes under way, without an old
    /// value (none was read). One atomic load when nothing was inserted meanwhile.
    static func endUnplanned(
        on object: KVOObject, key: String, hash: UInt64, kind: KeyValueChange.Kind, indexes: IndexSet?,
        insertedAfter epoch: UInt64, readOwnValue: (_ reportingMisuse: Bool) -> Any?
    ) {
        guard let table = object.existingTableReference,
            table._withUnsafeGuaranteedRef({ $0.insertionCount != epoch })
        else { return }
        var plan = ChangePlan(
            table: table, targets: ChangeTargets(entries: []), epoch: epoch, key: key, hash: hash, kind: kind,
            indexes: indexes)
        let extras = Extras(isRelayed: false, setMutation: nil)
        extras.oldValuesUnknown = true
        plan.extras = extras
        plan.end(on: object, readOwnValue: readOwnValue)
    }

    /// Reads old values (`readOwnValue` for `key` itself, key-value coding for the rest) and sends prior
    /// notifications. `readOwnValue` is told whether a failed read must be reported (only when a registration of the
    /// key itself that reports misuse asked for the value; the copy kept for late joiners is read quietly).
    mutating func begin(on object: KVOObject, readOwnValue: (_ reportingMisuse: Bool) -> Any?) {
        if targets.reachesRelays || extras?.isRelayed == true { claimEntries() }
        if let extras, let setMutation = extras.setMutation {
            // The removed objects are the old value; the added ones, worked out now, the new value.
            let effect = setMutation.effect(on: readOwnValue(targets.ownOldIsReported))
            ownOldValue = effect.removed
            extras.setAdded = effect.added
        } else if indexes == nil {
            ownOldValue = boxNil(readOwnValue(targets.ownOldIsReported))
        } else {
            ownOldValue = readOwnValue(targets.ownOldIsReported)
        }
        if targets.othersWantOld {
            otherOldValues = targets.entries.indices.map { index in
                let entry = targets.entries[index]
                return entry.isOwnKey || !entry.wantsOld || isLeftOut(index) ? nil : Self.currentValue(of: entry, on: object)
            }
        }
        guard targets.wantsPrior else { return }
        guard let scope = extras?.scope, scope !== AnnouncementScope.current else {
            sendPriors(from: object)
            return
        }
        // Changes that relays begin while the priors go out are part of this change.
        AnnouncementScope.entering(scope) { sendPriors(from: object) }
    }

    private func sendPriors(from object: KVOObject) {
        let ownOld = ownOldValueAsDelivered
        for (index, entry) in targets.unretainedEntries.enumerated() where !isLeftOut(index) {
            entry._withUnsafeGuaranteedRef { entry in
                guard entry.wantsPrior else { return }
                notify(
                    entry, oldValue: entry.isOwnKey ? ownOld : otherOldValues(at: index), newValue: nil, isPrior: true,
                    from: object)
            }
        }
    }

    /// Joins the scope of the change under way on this thread (a change a relay began), or opens one, and claims
    /// every key path this change announces, leaving out those another change of the scope announces already.
    private mutating func claimEntries() {
        let extras = self.extras ?? Extras(isRelayed: false, setMutation: nil)
        self.extras = extras
        let scope = (extras.isRelayed ? AnnouncementScope.current : nil) ?? AnnouncementScope()
        extras.scope = scope
        table._withUnsafeGuaranteedRef { table in
            for (index, entry) in targets.entries.enumerated()
            where !scope.claim(entry.keyPath, hash: KeyHash.of(entry.keyPath), on: table) {
                if extras.leftOut.isEmpty { extras.leftOut = [Bool](repeating: false, count: targets.entries.count) }
                extras.leftOut[index] = true
            }
        }
    }

    /// Whether the entry at `index` is announced by another change of this change's scope.
    @inline(__always)
    private func isLeftOut(_ index: Int) -> Bool {
        guard let extras else { return false }
        return !extras.leftOut.isEmpty && extras.leftOut[index]
    }

    /// Re-wires dotted key paths to the new intermediate objects, reads new values and sends change notifications,
    /// to the observances of the snapshot and to late joiners.
    mutating func end(on object: KVOObject, readOwnValue: (_ reportingMisuse: Bool) -> Any?) {
        if targets.hasDotted {
            for entry in targets.entries where entry.hasDotted {
                for observance in entry.observances where observance.isDotted {
                    KeyPathForwarder.rewire(observance, of: object)
                }
            }
        }
        // Every dotted observance inserted meanwhile may have wired itself before the store: re-wire it, whether or
        // not it hears about this change.
        Self.rewireDottedJoiners(of: object, changeOf: key, hash: keyHash, insertedAfter: epoch)
        let lateJoiners = table._withUnsafeGuaranteedRef { self.lateJoiners(in: $0) }
        let ownOld = ownOldValueAsDelivered
        // A removal has no new elements (Foundation sends no new value for it).
        let ownNew: Any?
        if let extras, extras.setMutation != nil {
            ownNew = kind == .removal ? nil : extras.setAdded
        } else {
            let rawOwnNew = targets.ownWantsNew || !lateJoiners.isEmpty ? readOwnValue(targets.ownNewIsReported) : nil
            ownNew = kind == .removal ? nil : Self.value(rawOwnNew, at: indexes)
        }
        // Newest first: late joiners joined after every observance of the snapshot.
        for late in lateJoiners.reversed() {
            notify(late, on: object, ownOld: ownOld, ownNew: ownNew)
        }
        // The reverse of the prior notifications' order (see the type's documentation).
        let entries = targets.unretainedEntries
        var index = entries.count
        while index > 0 {
            index -= 1
            if isLeftOut(index) { continue }
            entries[index]._withUnsafeGuaranteedRef { entry in
                if entry.isOwnKey {
                    notify(entry, oldValue: ownOld, newValue: ownNew, isPrior: false, from: object)
                } else {
                    let newValue = entry.wantsNew ? Self.currentValue(of: entry, on: object) : nil
                    notify(entry, oldValue: otherOldValues(at: index), newValue: newValue, isPrior: false, from: object)
                }
            }
        }
    }

    // MARK: Values

    /// What only some changes need.
    private final class Extras {
        /// Whether a dependent key's relay began the change, so it joins the scope of the change that set the relay
        /// off (see ``AnnouncementScope``).
        let isRelayed: Bool
        /// For a mutation of a set property: the mutation.
        let setMutation: SetMutation?
        /// The objects the set mutation adds, worked out when it begins.
        var setAdded: Set<AnyHashable> = []
        /// The scope the change announces in; `nil` unless a relay takes part.
        var scope: AnnouncementScope?
        /// By entry: announced by another change of the scope, so left out here; empty when none is.
        var leftOut: [Bool] = []
        /// Whether the change began with nobody to notify, so no old value was read (see
        /// ``ChangePlan/endUnplanned(on:key:hash:kind:indexes:insertedAfter:readOwnValue:)``).
        var oldValuesUnknown = false

        init(isRelayed: Bool, setMutation: SetMutation?) {
            self.isRelayed = isRelayed
            self.setMutation = setMutation
        }
    }

    /// The changed key's old value as its own entries get it: `nil` for an insertion (Foundation sends no old value
    /// for it), the elements at the changed positions for other to-many changes.
    private var ownOldValueAsDelivered: Any? {
        if kind == .insertion { return nil }
        guard indexes != nil else { return ownOldValue }
        return Self.value(ownOldValue, at: indexes)
    }

    /// The old value read at the start for the other key path at `index`, if it asked for one.
    private func otherOldValues(at index: Int) -> Any? {
        otherOldValues.isEmpty ? nil : otherOldValues[index]
    }

    /// The current value of another key path than the changed key, read through key-value coding.
    private static func currentValue(of entry: ChangeTargets.Entry, on object: KVOObject) -> Any? {
        boxNil(KeyValueReading.value(of: object, forKeyPath: entry.keyPath, reportingMisuse: entry.reportsMisuse))
    }

    /// `raw` as a change carries it: for a to-many change the elements at the changed positions, else the value
    /// itself, with `nil` boxed.
    private static func value(_ raw: consuming Any?, at indexes: IndexSet?) -> Any? {
        guard let indexes else { return boxNil(raw) }
        guard let array = raw.flatMap({ $0 as? [Any] }) else { return [Any]() }
        // Positions past the end have no element. Clipped range by range, so an index set as large as
        // `0..<Int.max` costs what the array holds, not what the set spans.
        return indexes.intersection(IndexSet(integersIn: 0..<array.count)).map { array[$0] }
    }

    // MARK: Delivery

    /// Sends one notification to each observance of `entry` (for a prior notification, to those that asked for
    /// one, oldest registration first; for a change, newest first), with the values each asked for. Consecutive
    /// observances that asked for the same values share one change. Always inlined: with the delivery loop walked
    /// in either direction the optimizer would otherwise call it (about 60 instructions more per notification).
    @inline(__always)
    private func notify(
        _ entry: ChangeTargets.Entry, oldValue: Any?, newValue: Any?, isPrior: Bool, from object: KVOObject
    ) {
        // A dependent or dotted key path sees a to-many change of `key` as a setting of its own value.
        let kind = entry.isOwnKey ? kind : .setting
        let indexes = entry.isOwnKey ? indexes : nil
        let observances = entry.unretainedObservances
        // Walked by position in either direction: no reversed copy, no allocation.
        let step = isPrior ? 1 : -1
        var position = isPrior ? 0 : observances.count - 1
        if entry.asksForSameValues {
            let options = entry.options
            let change = KeyValueChange(
                kind: kind, keyPath: entry.keyPath, newValue: !isPrior && options.contains(.new) ? newValue : nil,
                oldValue: options.contains(.old) ? oldValue : nil, indexes: indexes, isPrior: isPrior)
            for _ in 0..<observances.count {
                observances[position]._withUnsafeGuaranteedRef { observance in
                    if isPrior, !observance.options.contains(.prior) { return }
                    observance.deliver(change, from: object)
                }
                position &+= step
            }
            return
        }
        let valueOptions = KeyValueObservingOptions([.new, .old]).rawValue
        var shapedFor = UInt.max
        var change = KeyValueChange(kind: kind, keyPath: entry.keyPath)
        for _ in 0..<observances.count {
            observances[position]._withUnsafeGuaranteedRef { observance in
                let options = observance.options
                if isPrior, !options.contains(.prior) { return }
                let wanted = options.rawValue & valueOptions
                if wanted != shapedFor {
                    shapedFor = wanted
                    change = KeyValueChange(
                        kind: kind, keyPath: entry.keyPath, newValue: !isPrior && options.contains(.new) ? newValue : nil,
                        oldValue: options.contains(.old) ? oldValue : nil, indexes: indexes, isPrior: isPrior)
                }
                observance.deliver(change, from: object)
            }
            position &+= step
        }
    }

    // MARK: Late joiners

    /// The observances inserted after the snapshot that hear about `key`, grouped as entries (empty in the common
    /// case, where nothing was inserted meanwhile: one atomic load).
    private func lateJoiners(in table: ObservationTable) -> [ChangeTargets.Entry] {
        guard table.insertionCount != epoch, let current = table.targets(forChangeOf: key, hash: keyHash).targets
        else { return [] }
        return current.entries.compactMap { entry -> ChangeTargets.Entry? in
            let joined = ContiguousArray(
                entry.observances.lazy.filter { $0.joinsChangesUnderWay && $0.insertionEpoch > epoch })
            if joined.isEmpty || !mayNotifyLateJoiners(of: entry.keyPath, in: table) { return nil }
            return ChangeTargets.Entry(keyPath: entry.keyPath, observances: joined, isOwnKey: entry.isOwnKey)
        }
    }

    /// Whether this change notifies the late joiners of `keyPath`: not when another change of its scope announced
    /// that key path (that one notifies them), nor when another one notified them already.
    private func mayNotifyLateJoiners(of keyPath: String, in table: ObservationTable) -> Bool {
        guard let scope = extras?.scope else { return true }
        if let index = targets.entries.firstIndex(where: { $0.keyPath.isSameKey(as: keyPath) }), isLeftOut(index) {
            return false
        }
        return scope.claimLateJoiners(of: keyPath, hash: KeyHash.of(keyPath), on: table)
    }

    /// After a change of `key`: re-wires every dotted observance inserted since insertion count `epoch` (when the
    /// change began) that `key` triggers, whether or not it hears about this change. Such an observance may have wired
    /// itself to the object at its first key before the change stored a new one, and nothing else would move it;
    /// this puts it on the object there now. Also used for a change that began with nobody to notify (no plan).
    static func rewireDottedJoiners(of object: KVOObject, changeOf key: String, hash: UInt64, insertedAfter epoch: UInt64) {
        guard let table = object.existingTable, table.insertionCount != epoch,
            let current = table.targets(forChangeOf: key, hash: hash).targets
        else { return }
        for entry in current.entries {
            for observance in entry.observances where observance.isDotted && observance.insertionEpoch > epoch {
                KeyPathForwarder.rewire(observance, of: object)
            }
        }
    }

    /// Notifies late joiners of one key path, each with a prior notification if it asked for one and then the
    /// change. The old value is there when the change knows it: the changed key's own old value, kept unless the
    /// change began with nobody to notify, and another key path's if that key path was observed (and read) when the
    /// change began; a joiner that asked for the old value gets none otherwise, rather than missing the change.
    private func notify(_ late: ChangeTargets.Entry, on object: KVOObject, ownOld: Any?, ownNew: Any?) {
        let oldValue: Any?
        let newValue: Any?
        if late.isOwnKey {
            oldValue = extras?.oldValuesUnknown == true ? nil : ownOld
            newValue = ownNew
        } else {
            if let begun = targets.entries.firstIndex(where: { $0.keyPath.isSameKey(as: late.keyPath) }),
                targets.entries[begun].wantsOld
            {
                oldValue = otherOldValues(at: begun)
            } else {
                oldValue = nil
            }
            newValue = late.wantsNew ? Self.currentValue(of: late, on: object) : nil
        }
        for observance in late.observances.reversed() {
            let single = ChangeTargets.Entry(keyPath: late.keyPath, observances: [observance], isOwnKey: late.isOwnKey)
            notify(single, oldValue: oldValue, newValue: newValue, isPrior: true, from: object)
            notify(single, oldValue: oldValue, newValue: newValue, isPrior: false, from: object)
        }
    }
}
