#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// How a child process ended: it exited with a status, or a signal killed it.
public enum ProcessEnd: Sendable, Hashable, CustomStringConvertible {
    /// The process called `exit` (or returned from `main`) with this status.
    case exited(Int32)
    /// A signal ended the process (its number).
    case signalled(Int32)

    /// Decodes a `waitpid` status (the `WIFEXITED` / `WIFSIGNALED` encoding shared by Linux and Darwin).
    init(waitStatus status: Int32) {
        let low = status & 0x7F
        self = low == 0 ? .exited((status >> 8) & 0xFF) : .signalled(low)
    }

    /// What reports and signatures call this ending: the signal's name (`SIGSEGV`), or `exit 3`.
    public var name: String {
        switch self {
        case .exited(let status): return "exit \(status)"
        case .signalled(let signal): return Self.signalName(signal)
        }
    }

    /// `exited with status 3`, `killed by SIGSEGV`.
    public var description: String {
        switch self {
        case .exited(let status): return "exited with status \(status)"
        case .signalled: return "killed by \(name)"
        }
    }

    /// Whether a Swift runtime trap ended the process (SIGILL on x86-64, SIGTRAP on arm64).
    public var isTrap: Bool { Violation.trapSignals.contains(name) }

    /// The conventional name of signal `number` (`SIGSEGV`), or `signal N` for one without a common name.
    public static func signalName(_ number: Int32) -> String {
        let names: [(Int32, String)] = [
            (SIGSEGV, "SIGSEGV"), (SIGBUS, "SIGBUS"), (SIGILL, "SIGILL"), (SIGTRAP, "SIGTRAP"), (SIGABRT, "SIGABRT"),
            (SIGFPE, "SIGFPE"), (SIGKILL, "SIGKILL"), (SIGTERM, "SIGTERM"), (SIGINT, "SIGINT"), (SIGQUIT, "SIGQUIT"),
            (SIGHUP, "SIGHUP"), (SIGPIPE, "SIGPIPE"), (SIGSYS, "SIGSYS"), (SIGXCPU, "SIGXCPU"), (SIGXFSZ, "SIGXFSZ"),
            (SIGUSR1, "SIGUSR1"), (SIGUSR2, "SIGUSR2"), (SIGALRM, "SIGALRM"),
        ]
        return names.first { $0.0 == number }?.1 ?? "signal \(number)"
    }
}
