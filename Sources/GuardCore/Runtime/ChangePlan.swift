import Foundation

/// A change that has begun (prior notifications sent) and awaits its end (store done, change notifications due).
///
/// Built under the object's table lock as a snapshot of the observances to notify; everything after that, reading
/// values and calling observers, happens outside every lock. A value type, so the notification path makes no
/// class allocation for it and needs no exclusivity checks.
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
        var event: ChangeEvent
    }

    let object: KVOObject
    let key: String
    private var entries: [Entry]

    /// Snapshots who must hear about a change of `key` on `object`; `nil` when nobody must.
    init?(object: KVOObject, key: String, kind: KeyValueChange.Kind, indexes: IndexSet?) {
        guard let table = object.existingTable else { return nil }
        let targets = table.targets(forChangeOf: key)
        if targets.isEmpty { return nil }
        self.object = object
        self.key = key
        self.entries = targets.map { target in
            var options: KeyValueObservingOptions = []
            var hasDotted = false
            for observance in target.observances {
                options.formUnion(observance.options)
                hasDotted = hasDotted || observance.isDotted
            }
            // A dependent or dotted key path sees a to-many change of `key` as a setting of its own value.
            let isOwnKey = target.keyPath == key
            return Entry(
                keyPath: target.keyPath, observances: target.observances, isOwnKey: isOwnKey,
                wantsOld: options.contains(.old), wantsNew: options.contains(.new), wantsPrior: options.contains(.prior),
                hasDotted: hasDotted,
                event: ChangeEvent(kind: isOwnKey ? kind : .setting, indexes: isOwnKey ? indexes : nil))
        }
    }

    /// Reads old values (`readOwnValue` for `key` itself, key-value coding for the rest) and sends prior
    /// notifications.
    mutating func begin(readOwnValue: () -> Any?) {
        for index in entries.indices where entries[index].wantsOld {
            // An insertion has no old elements (Foundation sends no old value for it).
            guard entries[index].event.kind != .insertion else { continue }
            entries[index].event.oldValue = value(of: entries[index], ownValue: readOwnValue)
        }
        for index in entries.indices where entries[index].wantsPrior {
            let event = entries[index].event
            for observance in entries[index].observances where observance.options.contains(.prior) {
                observance.deliver(observance.tailored(event, isPrior: true), from: object)
            }
        }
    }

    /// Re-wires dotted key paths to the new intermediate objects, reads new values and sends change notifications.
    mutating func end(readOwnValue: () -> Any?) {
        for index in entries.indices where entries[index].hasDotted {
            for observance in entries[index].observances where observance.isDotted {
                KeyPathForwarder.rewire(observance, of: object)
            }
        }
        for index in entries.indices where entries[index].wantsNew {
            // A removal has no new elements (Foundation sends no new value for it).
            guard entries[index].event.kind != .removal else { continue }
            entries[index].event.newValue = value(of: entries[index], ownValue: readOwnValue)
        }
        for index in entries.indices {
            let event = entries[index].event
            for observance in entries[index].observances {
                observance.deliver(observance.tailored(event, isPrior: false), from: object)
            }
        }
    }

    private func value(of entry: Entry, ownValue: () -> Any?) -> Any? {
        let raw = entry.isOwnKey ? ownValue() : object.value(forKeyPath: entry.keyPath)
        guard let indexes = entry.event.indexes else { return boxNil(raw) }
        // To-many: the elements at the changed positions.
        guard let array = raw.flatMap({ $0 as? [Any] }) else { return [Any]() }
        return indexes.filter { $0 < array.count }.map { array[$0] }
    }
}
