/// The rule that nothing user-owned runs under the system's locks (handlers, what they capture,
/// observed objects and diagnostic sinks are called, released and deinitialized outside every internal lock), checked
/// where user code starts: a handler, a diagnostic sink, an observer's deinit.
///
/// Only a controlled run can tell: its scheduler knows which locks each worker holds (every lock that announces
/// itself to GuardCore's schedule points). The locks a worker holds when user code starts, less those it held when
/// its innermost operation called the system, and less the world's own slot and mutation locks, are locks the
/// system took and still holds. Asking costs no schedule step, so checking changes no schedule.
extension StressWorld {
    /// Notes that user code (`what`) starts on the calling thread, and records it if the system holds a lock.
    func noteUserCode(_ what: @autoclosure () -> String) {
        guard let worker = WorkerContext.current, let held = ControlledHook.locksHeldByCallingWorker(), !held.isEmpty
        else { return }
        let systemLocks = held.subtracting(worker.locksHeldAtCall.last ?? []).subtracting(worldLocks)
        guard !systemLocks.isEmpty else { return }
        let operation = worker.frames.last.map { "operation #\($0)" } ?? "no operation"
        worker.callsUnderLock.append(
            "\(what()) ran on worker \(worker.index) (inside \(operation)) while the system held "
                + (systemLocks.count == 1 ? "one of its locks" : "\(systemLocks.count) of its locks"))
    }
}
