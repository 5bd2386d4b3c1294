import Foundation

/// A change that has begun (prior notifications sent) and awaits its end (store done, change notifications due).
///
/// Built under the object's table lock as a snapshot of the observances to notify; everything after that, reading
/// values and calling observers, happens outside every lock.
final class ChangePlan {
    struct Entry {
        let target: ObservationTable.Target
        var event: ChangeEvent
        let wantsOld: Bool
        let wantsNew: Bool
    }

    let object: KVOObject
    let key: String
    var entries: [Entry]

    /// Snapshots who must hear about a change of `key` on `object`; `nil` when nobody must.
    init?(object: KVOObject, key: String, kind: KeyValueChange.Kind, indexes: IndexSet?) {
        guard let table = object.existingTable else { return nil }
        let targets = table.targets(forChangeOf: key)
        if targets.isEmpty { return nil }
        self.object = object
        self.key = key
        self.entries = targets.map { target in
            var wantsOld = false
            var wantsNew = false
            for observance in target.observances {
                wantsOld = wantsOld || observance.options.contains(.old)
                wantsNew = wantsNew || observance.options.contains(.new)
            }
            // A dependent or dotted key path sees a to-many change of `key` as a setting of its own value.
            let ownKey = target.keyPath == key
            return Entry(
                target: target,
                event: ChangeEvent(kind: ownKey ? kind : .setting, indexes: ownKey ? indexes : nil),
                wantsOld: wantsOld, wantsNew: wantsNew)
        }
    }

    /// Reads old values (`readOwnValue` for `key` itself, key-value coding for the rest) and sends prior
    /// notifications.
    func begin(readOwnValue: () -> Any?) {
        // An insertion has no old elements (Foundation sends no old value for it).
        for index in entries.indices where entries[index].wantsOld && entries[index].event.kind != .insertion {
            let entry = entries[index]
            entries[index].event.oldValue = value(for: entry, ownValue: readOwnValue)
        }
        for entry in entries {
            for observance in entry.target.observances where observance.options.contains(.prior) {
                observance.deliver(observance.tailored(entry.event, isPrior: true), from: object)
            }
        }
    }

    /// Re-wires dotted key paths to the new intermediate objects, reads new values and sends change notifications.
    func end(readOwnValue: () -> Any?) {
        for entry in entries {
            for observance in entry.target.observances where observance.isDotted {
                KeyPathForwarder.rewire(observance, of: object)
            }
        }
        // A removal has no new elements (Foundation sends no new value for it).
        for index in entries.indices where entries[index].wantsNew && entries[index].event.kind != .removal {
            let entry = entries[index]
            entries[index].event.newValue = value(for: entry, ownValue: readOwnValue)
        }
        for entry in entries {
            for observance in entry.target.observances {
                observance.deliver(observance.tailored(entry.event, isPrior: false), from: object)
            }
        }
    }

    private func value(for entry: Entry, ownValue: () -> Any?) -> Any? {
        let raw: Any?
        if entry.target.keyPath == key {
            raw = ownValue()
        } else {
            raw = object.value(forKeyPath: entry.target.keyPath)
        }
        guard let indexes = entry.event.indexes else { return boxNil(raw) }
        // To-many: the elements at the changed positions.
        guard let array = raw.flatMap({ $0 as? [Any] }) else { return [Any]() }
        return indexes.filter { $0 < array.count }.map { array[$0] }
    }
}
