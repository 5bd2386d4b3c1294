import Foundation

/// Runs changes of observed keys: prior notifications, the store, then change notifications, with dependent and
/// dotted key paths included.
enum ChangeAnnouncer {
    /// An automatic notification for a set through an ``Observed`` property whose key bit is in the object's mask.
    static func announceSetting<Value>(
        of key: String, on object: KVOObject, currentValue: () -> Value, newValue: Value, store: () -> Void
    ) {
        guard type(of: object).automaticallyNotifiesObservers(forKey: key),
            !ManualChanges.isSilenced(object: object, key: key),
            let plan = ChangePlan(object: object, key: key, kind: .setting, indexes: nil)
        else {
            store()
            return
        }
        plan.begin(readOwnValue: { flattenOptional(currentValue()) })
        SchedulePoints.reach(.runtimeBeforeStore)
        store()
        plan.end(readOwnValue: { flattenOptional(newValue) })
    }
}
