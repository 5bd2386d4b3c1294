import Foundation

/// Runs changes of observed keys: prior notifications, the store, then change notifications, with dependent and
/// dotted key paths included.
@usableFromInline
enum ChangeAnnouncer {
    /// An automatic notification for a set through an ``Observed`` property whose key bit is in the object's mask.
    /// `currentValue` reads the property's value: before `store` for the old value, after it for the new one. Values
    /// of optional type are flattened as key-value coding reads them, others are passed as they are.
    @usableFromInline
    static func announceSetting(
        of key: ObservedKey, on object: KVOObject, currentValue: () -> Any, store: () -> Void
    ) {
        guard type(of: object).automaticallyNotifiesObservers(forKey: key.name),
            !ManualChanges.isSilenced(object: object, key: key.name), let table = object.existingTableReference
        else {
            store()
            return
        }
        let (targets, epoch) = table._withUnsafeGuaranteedRef { $0.targets(forChangeOf: key.name, hash: key.hash) }
        guard let targets else {
            store()
            return
        }
        var plan = ChangePlan(
            table: table, targets: targets, epoch: epoch, key: key.name, hash: key.hash, kind: .setting, indexes: nil)
        if key.valueIsOptional {
            plan.begin(on: object, readOwnValue: { _ in flattenOptional(currentValue()) })
            SchedulePoints.reach(.runtimeBeforeStore, object)
            store()
            plan.end(on: object, readOwnValue: { _ in flattenOptional(currentValue()) })
        } else {
            plan.begin(on: object, readOwnValue: { _ in currentValue() })
            SchedulePoints.reach(.runtimeBeforeStore, object)
            store()
            plan.end(on: object, readOwnValue: { _ in currentValue() })
        }
    }
}
