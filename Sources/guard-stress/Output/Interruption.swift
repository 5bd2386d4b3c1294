import FaultInjector
import Foundation

/// SIGTERM (a CI job's time limit) and SIGINT (Ctrl-C) while a command works: the armed handler writes what the
/// command's reports must say about a run that did not finish, then the process ends by the same signal, as it would
/// have without the handler. A report of an earlier run is so never left behind looking like this one's result.
///
/// The signal handler itself only writes the signal's number into a pipe; a thread of its own reads it and runs the
/// armed handler. The handler and the command's own final reports never run at once: ``finishing(_:)`` disarms the
/// handler and holds it off while the final reports are written (a signal arriving then ends the process right after
/// them).
final class Interruption: @unchecked Sendable {
    /// The one instance: signals belong to the process.
    static let shared = Interruption()

    private let lock = NSLock()
    private var handler: (@Sendable (_ signal: Int32, _ name: String) -> Void)?
    private var installed = false

    /// The signals handled: a CI runner's SIGTERM and a terminal's SIGINT.
    static let signals: [(number: Int32, name: String)] = [(SIGTERM, "SIGTERM"), (SIGINT, "SIGINT")]

    /// Arms `handler` for SIGTERM and SIGINT (replacing any armed one).
    func arm(_ handler: @escaping @Sendable (_ signal: Int32, _ name: String) -> Void) {
        lock.lock()
        defer { lock.unlock() }
        self.handler = handler
        guard !installed, signalPipe.write >= 0 else { return }
        installed = true
        let watcher = Thread { [unowned self] in
            var byte: UInt8 = 0
            while true {
                let count = read(signalPipe.read, &byte, 1)
                if count == 1 { received(Int32(byte)) } else if count < 0, errno == EINTR { continue } else { return }
            }
        }
        watcher.stackSize = 256 * 1024
        watcher.start()
        for (number, _) in Self.signals {
            // Async-signal-safe: one write(2) of the signal's number into the pipe.
            signal(number) { number in
                var byte = UInt8(truncatingIfNeeded: number)
                _ = write(signalPipe.write, &byte, 1)
            }
        }
    }

    /// Disarms the handler and runs `body` (writing the final reports) without a handler running meanwhile.
    func finishing<Result>(_ body: () -> Result) -> Result {
        lock.lock()
        defer { lock.unlock() }
        handler = nil
        return body()
    }

    private func received(_ number: Int32) {
        let name = Self.signals.first { $0.number == number }?.name ?? "signal \(number)"
        lock.lock()
        let armed = handler
        handler = nil
        armed?(number, name)
        lock.unlock()
        // The children running rounds end with this process, not after it.
        ChildProcesses.stopAll()
        // End as the signal would have ended the process.
        signal(number, SIG_DFL)
        kill(getpid(), number)
    }
}

/// The pipe from the signal handler to ``Interruption``'s thread (made before any handler is installed).
private struct SignalPipe: Sendable {
    let read: Int32
    let write: Int32
}

private let signalPipe: SignalPipe = {
    var descriptors: [Int32] = [-1, -1]
    guard pipe(&descriptors) == 0 else { return SignalPipe(read: -1, write: -1) }
    for descriptor in descriptors { _ = fcntl(descriptor, F_SETFD, FD_CLOEXEC) }
    return SignalPipe(read: descriptors[0], write: descriptors[1])
}()
