#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation

/// The child processes this process started to run rounds, for stopping them all at once.
public enum ChildProcesses {
    /// Kills (SIGKILL) every child process this process started for rounds, replays or shrinking and has not reaped
    /// yet. For a handler of SIGTERM or SIGINT that is about to end the process: its children then end with it
    /// instead of finishing their rounds unwatched (they would also end by themselves within a quarter of a second
    /// of noticing their parent is gone). Safe from any thread; a process id is never signalled after it was
    /// reaped, so no unrelated process is hit.
    public static func stopAll() {
        ChildProcessRegistry.shared.killAll()
    }

    /// How many children are live (started and not yet reaped).
    public static var liveCount: Int {
        ChildProcessRegistry.shared.count
    }
}

/// The live children by process id. A child is added when it is started and removed when it is reaped, both under
/// the registry's lock, and signals are sent under the same lock: a process id in the registry is always one of
/// ours (a reaped id could be reused by an unrelated process).
final class ChildProcessRegistry: @unchecked Sendable {
    static let shared = ChildProcessRegistry()

    private let lock = NSLock()
    private var live: Set<pid_t> = []

    /// Counts `pid` in.
    func add(_ pid: pid_t) {
        lock.lock()
        live.insert(pid)
        lock.unlock()
    }

    /// Forgets `pid` without reaping it (its owner gave it up).
    func remove(_ pid: pid_t) {
        lock.lock()
        live.remove(pid)
        lock.unlock()
    }

    /// `waitpid(pid, WNOHANG)` under the lock, forgetting the child if it was reaped (or is not ours any more).
    /// Returns what waitpid returned and the status.
    func reap(_ pid: pid_t) -> (result: pid_t, status: Int32, error: Int32) {
        lock.lock()
        defer { lock.unlock() }
        var status: Int32 = 0
        let result = waitpid(pid, &status, WNOHANG)
        let error = result < 0 ? errno : 0
        if result == pid || (result < 0 && error != EINTR) { live.remove(pid) }
        return (result, status, error)
    }

    /// Sends SIGKILL to `pid` if it is live; `false` if it was already reaped.
    @discardableResult
    func kill(_ pid: pid_t) -> Bool {
        lock.lock()
        defer { lock.unlock() }
        guard live.contains(pid) else { return false }
        _ = sendKill(pid, SIGKILL)
        return true
    }

    /// Sends SIGKILL to every live child.
    func killAll() {
        lock.lock()
        defer { lock.unlock() }
        for pid in live { _ = sendKill(pid, SIGKILL) }
    }

    var count: Int {
        lock.lock()
        defer { lock.unlock() }
        return live.count
    }
}

/// `kill(2)`, which ``ChildProcessRegistry/kill(_:)`` shadows.
private func sendKill(_ pid: pid_t, _ signal: Int32) -> Int32 {
    kill(pid, signal)
}
