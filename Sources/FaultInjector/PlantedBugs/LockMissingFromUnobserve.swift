import GuardCore

/// **Planted bug `bug-lock-missing`: the guard's lock is missing from one path, the single-key unobserve.** It looks
/// the registration up, removes it from the runtime, and only then takes it out of the table, all without the lock:
/// two threads unobserving the same key path both find it, both answer `removed`, and the second removal reaches the
/// runtime after the first took the observance away. Under real concurrency the unlocked table accesses also race
/// with every locked one (a data race on a Swift dictionary: memory corruption, a crash).
///
/// Breaks "every method may be called from any thread" and FBKVOController's
/// `pthread_mutex` around its maps. The oracle sees `runtime-misuse(notRegistered)` and `non-linearizable`; a chaos
/// round may instead die (`crash(SIGSEGV)` / `trap`, with rounds in child processes).
final class LockMissingController: BaselineController, @unchecked Sendable {
    override func unobserve(_ object: StressObject, keyPath: String, call: StressCall) -> UnobserveOutcome {
        let key = key(for: object, keyPath: keyPath)
        // The planted bug: check, act and update without `table.lock` (each table access announced to explorers, as
        // the lock's would have been).
        SchedulePoints.access(table, .unlockedTable, .read)
        guard let registration = table.byKey[key] else { return .notRegistered }
        if registration.state == .active { unregister(registration) }
        registration.set(.removed)
        SchedulePoints.access(table, .unlockedTable, .write)
        table.remove(registration)
        return .removed
    }
}
