/// The least a notification can cost, to compare the runtime's with: one uncontended lock/unlock around one
/// dictionary lookup, then one closure call with the old and new values boxed.
final class NotificationFloor {
    private let mutex = BenchMutex()
    private var handlers: [String: (Any?, Any?) -> Void] = [:]
    private(set) var value = 0

    /// A floor whose handler for ``BenchModel/key`` adds new values to `tally`, among handlers for a few other keys.
    init(tally: Tally) {
        for key in ["name", "count", "enabled"] {
            handlers[key] = { _, _ in }
        }
        handlers[BenchModel.key] = { _, new in tally.add(boxed: new) }
    }

    /// Stores `newValue`, then finds the handler for `key` under the lock and calls it outside the lock.
    @inline(never)
    func set(_ newValue: Int, key: String) {
        let old = value
        value = newValue
        mutex.lock()
        let handler = handlers[key]
        mutex.unlock()
        handler?(old, newValue)
    }
}
