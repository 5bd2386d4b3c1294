import Foundation

/// A change that has begun (prior notifications sent) and awaits its end (store done, change notifications due).
///
/// Built under the object's table lock as a snapshot of the observances to notify; everything after that, reading
/// values and calling observers, happens outside every lock. A value type, so the notification path makes no
/// class allocation for it and needs no exclusivity checks. It holds no reference to the object (pending manual
/// changes must not keep it alive): the object is passed to `begin(on:readOwnValue:)` and `end(on:readOwnValue:)`.
///
/// **Registrations that join while the change is under way.** A guarded registration (one the guard made, see
/// ``Observance/isGuarded``) inserted after the snapshot (a *late joiner*) is notified at the end as well, if the change can give it exact values: the old value of the
/// changed key itself is always kept for that, and for other key paths the one read at the start when their key path
/// was already observed. So a change that completes after a registration exists is never lost between an
/// `.initial` value read after the insert and the notifications that follow (see ``ObservationController``). An
/// application's own registration keeps Foundation's behaviour: one added between a `willChange` and its
/// `didChange` is not part of that change.
struct ChangePlan {
    /// The observances of one key path, what they asked for, and the facts of the change for them.
    private struct Entry {
        let keyPath: String
        let observances: [Observance]
        /// The key path is the changed key itself (not a dependent or dotted one).
        let isOwnKey: Bool
        let wantsOld: Bool
        let wantsNew: Bool
        let wantsPrior: Bool
        let hasDotted: Bool
        /// Some observance reports misuse, so a value that cannot be read is reported rather than read as nil.
        let reportsMisuse: Bool
        var event: ChangeEvent
    }

    let key: String
    private let kind: KeyValueChange.Kind
    private let indexes: IndexSet?
    private let table: ObservationTable
    private let epoch: UInt64
    private var entries: [Entry]
    /// The changed key's own value before the change (read at `begin(on:readOwnValue:)`), for late joiners.
    private var ownOldValue: Any?
    private var hasOwnOldValue = false

    /// Snapshots who must hear about a change of `key` on `object`; `nil` when nobody must.
    init?(object: KVOObject, key: String, kind: KeyValueChange.Kind, indexes: IndexSet?) {
        guard let table = object.existingTable else { return nil }
        let snapshot = table.targets(forChangeOf: key)
        if snapshot.targets.isEmpty { return nil }
        self.key = key
        self.kind = kind
        self.indexes = indexes
        self.table = table
        self.epoch = snapshot.epoch
        self.entries = snapshot.targets.map { Self.entry(for: $0, key: key, kind: kind, indexes: indexes) }
    }

    private static func entry(
        for target: ObservationTable.Target, key: String, kind: KeyValueChange.Kind, indexes: IndexSet?
    ) -> Entry {
        var options: KeyValueObservingOptions = []
        var hasDotted = false
        var reportsMisuse = false
        for observance in target.observances {
            options.formUnion(observance.options)
            hasDotted = hasDotted || observance.isDotted
            reportsMisuse = reportsMisuse || !observance.isGuarded
        }
        // A dependent or dotted key path sees a to-many change of `key` as a setting of its own value.
        let isOwnKey = target.keyPath == key
        return Entry(
            keyPath: target.keyPath, observances: target.observances, isOwnKey: isOwnKey,
            wantsOld: options.contains(.old), wantsNew: options.contains(.new), wantsPrior: options.contains(.prior),
            hasDotted: hasDotted, reportsMisuse: reportsMisuse,
            event: ChangeEvent(kind: isOwnKey ? kind : .setting, indexes: isOwnKey ? indexes : nil))
    }

    /// Reads old values (`readOwnValue` for `key` itself, key-value coding for the rest) and sends prior
    /// notifications. `readOwnValue` is told whether a failed read must be reported (only when a registration of the
    /// key itself that reports misuse asked for the value; the copy kept for late joiners is read quietly).
    mutating func begin(on object: KVOObject, readOwnValue: (_ reportingMisuse: Bool) -> Any?) {
        ownOldValue = readOwnValue(entries.contains { $0.isOwnKey && $0.wantsOld && $0.reportsMisuse })
        hasOwnOldValue = true
        for index in entries.indices where entries[index].wantsOld {
            // An insertion has no old elements (Foundation sends no old value for it).
            guard entries[index].event.kind != .insertion else { continue }
            entries[index].event.oldValue = value(of: entries[index], on: object, ownValue: ownOldValue)
        }
        for index in entries.indices where entries[index].wantsPrior {
            let event = entries[index].event
            for observance in entries[index].observances where observance.options.contains(.prior) {
                observance.deliver(observance.tailored(event, isPrior: true), from: object)
            }
        }
    }

    /// Re-wires dotted key paths to the new intermediate objects, reads new values and sends change notifications,
    /// to the observances of the snapshot and to late joiners.
    mutating func end(on object: KVOObject, readOwnValue: (_ reportingMisuse: Bool) -> Any?) {
        for index in entries.indices where entries[index].hasDotted {
            for observance in entries[index].observances where observance.isDotted {
                KeyPathForwarder.rewire(observance, of: object)
            }
        }
        let lateJoiners = self.lateJoiners()
        for late in lateJoiners {
            for observance in late.observances where observance.isDotted {
                KeyPathForwarder.rewire(observance, of: object)
            }
        }
        let ownEntryWantsNew = entries.contains { $0.isOwnKey && $0.wantsNew }
        let ownNewValue =
            ownEntryWantsNew || !lateJoiners.isEmpty
            ? readOwnValue(entries.contains { $0.isOwnKey && $0.wantsNew && $0.reportsMisuse }) : nil
        for index in entries.indices where entries[index].wantsNew {
            // A removal has no new elements (Foundation sends no new value for it).
            guard entries[index].event.kind != .removal else { continue }
            entries[index].event.newValue = value(of: entries[index], on: object, ownValue: ownNewValue)
        }
        for index in entries.indices {
            let event = entries[index].event
            for observance in entries[index].observances {
                observance.deliver(observance.tailored(event, isPrior: false), from: object)
            }
        }
        for late in lateJoiners {
            deliver(to: late, on: object, ownNewValue: ownNewValue)
        }
    }

    // MARK: Late joiners

    /// The observances inserted after the snapshot that hear about `key`, grouped as entries (empty in the common
    /// case, where nothing was inserted meanwhile: one atomic load).
    private func lateJoiners() -> [Entry] {
        guard table.insertionCount != epoch else { return [] }
        return table.targets(forChangeOf: key).targets.compactMap { target in
            let joined = target.observances.filter { $0.isGuarded && $0.insertionEpoch > epoch }
            if joined.isEmpty { return nil }
            return Self.entry(
                for: ObservationTable.Target(keyPath: target.keyPath, observances: joined), key: key, kind: kind,
                indexes: indexes)
        }
    }

    /// Notifies late joiners of one key path when their values can be exact: the changed key's own old value was
    /// kept, and another key path's old value exists if that key path was observed (and read) when the change began.
    private func deliver(to late: Entry, on object: KVOObject, ownNewValue: Any?) {
        var event = late.event
        let begun = entries.first { $0.keyPath == late.keyPath }
        let knowsOld: Bool
        if late.isOwnKey {
            knowsOld = hasOwnOldValue
            if late.wantsOld, event.kind != .insertion { event.oldValue = value(of: late, on: object, ownValue: ownOldValue) }
        } else {
            knowsOld = begun?.wantsOld == true
            event.oldValue = begun?.event.oldValue
        }
        if late.wantsNew, event.kind != .removal {
            event.newValue = value(of: late, on: object, ownValue: ownNewValue)
        }
        for observance in late.observances where knowsOld || !observance.options.contains(.old) {
            if observance.options.contains(.prior) {
                observance.deliver(observance.tailored(event, isPrior: true), from: object)
            }
            observance.deliver(observance.tailored(event, isPrior: false), from: object)
        }
    }

    private func value(of entry: Entry, on object: KVOObject, ownValue: Any?) -> Any? {
        let raw =
            entry.isOwnKey
            ? ownValue
            : KeyValueReading.value(of: object, forKeyPath: entry.keyPath, reportingMisuse: entry.reportsMisuse)
        guard let indexes = entry.event.indexes else { return boxNil(raw) }
        // To-many: the elements at the changed positions.
        guard let array = raw.flatMap({ $0 as? [Any] }) else { return [Any]() }
        return indexes.filter { $0 < array.count }.map { array[$0] }
    }
}
