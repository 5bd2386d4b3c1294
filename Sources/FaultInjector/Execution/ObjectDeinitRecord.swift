/// A stress object whose deinit began on a worker's thread inside one of its operations.
///
/// GuardCore's runtime drops a weakly held object's registrations synchronously later in the same deinit, and the
/// operation returns only after the whole deinit finished: so that operation's return time is a sure end of the
/// deinit, recorded without reading the clock in the deinit (a controlled run's ticks, and so its history, stay as
/// they were).
struct ObjectDeinitRecord: Sendable {
    /// The object's id.
    let object: Int
    /// The innermost operation the worker was inside when the deinit began.
    let operation: Int
}
