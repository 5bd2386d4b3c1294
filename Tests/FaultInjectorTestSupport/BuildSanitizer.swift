#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The sanitizer this test binary was built with (`swift test --sanitize=thread`), if any. The guard-stress it
/// launches and the child processes of its rounds are built with it too, so a fixture's segfault is caught by the
/// sanitizer, which reports it and exits with its own status: the harness's verdict is then `crash(ThreadSanitizer)`,
/// not `crash(SIGSEGV)`. Tests that expect a crash expect that verdict in such a build, and the signal's in any other.
package enum BuildSanitizer {
    /// `ThreadSanitizer` or `AddressSanitizer` when the process carries that sanitizer's runtime; `nil` otherwise.
    package static let name: String? = {
        let handle = dlopen(nil, RTLD_NOW)
        if dlsym(handle, "__tsan_init") != nil { return "ThreadSanitizer" }
        if dlsym(handle, "__asan_init") != nil { return "AddressSanitizer" }
        return nil
    }()

    /// What a process killed by `signal` (`SIGSEGV`) is reported as: the sanitizer's name in a sanitizer build.
    package static func crashCause(ofSignal signal: String) -> String {
        name ?? signal
    }

    /// A wall-clock limit of `seconds` for work that starts processes and runs code: three times as long in a
    /// sanitizer build, which runs everything several times slower (ThreadSanitizer about ten times).
    package static func timeLimit(_ seconds: Double) -> Double {
        name == nil ? seconds : 3 * seconds
    }

    /// The signature of a round whose process segfaulted: `crash(SIGSEGV)`, or `crash(ThreadSanitizer)`.
    package static var segfaultSignature: String {
        "crash(\(crashCause(ofSignal: "SIGSEGV")))"
    }
}
