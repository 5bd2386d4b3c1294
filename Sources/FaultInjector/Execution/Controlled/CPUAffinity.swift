#if canImport(Glibc)
import Glibc

/// Keeps a controlled run's worker threads on one CPU. Only one of them runs at a time, so nothing is lost, and a
/// hand-over becomes a switch on the same core instead of a wake-up on another one: measured on a 2-core machine,
/// more than twice as many random-strategy schedules per second.
///
/// Linux only; the functions are looked up at run time (Swift does not import glibc's GNU extensions), and when
/// they are missing nothing is pinned.
enum CPUAffinity {
    private typealias CurrentCPU = @convention(c) () -> Int32
    private typealias SetAffinity = @convention(c) (pthread_t, Int, UnsafeRawPointer) -> Int32

    private static let currentCPUFunction: CurrentCPU? = symbol("sched_getcpu")
    private static let setAffinityFunction: SetAffinity? = symbol("pthread_setaffinity_np")

    private static func symbol<Function>(_ name: String) -> Function? {
        guard let handle = dlopen(nil, RTLD_NOW), let address = dlsym(handle, name) else { return nil }
        return unsafeBitCast(address, to: Function.self)
    }

    /// The CPU the calling thread runs on, if known.
    static var currentCPU: Int? {
        guard let currentCPUFunction else { return nil }
        let cpu = currentCPUFunction()
        return cpu >= 0 ? Int(cpu) : nil
    }

    /// Keeps the calling thread on `cpu` from now on; does nothing if that is not possible.
    static func pinCallingThread(to cpu: Int) {
        guard let setAffinityFunction, cpu >= 0, cpu < 1_024 else { return }
        var mask = [UInt64](repeating: 0, count: 16)  // a 1,024-bit cpu_set_t
        mask[cpu / 64] = 1 << UInt64(cpu % 64)
        _ = mask.withUnsafeBytes { setAffinityFunction(pthread_self(), $0.count, $0.baseAddress!) }
    }
}
#else
/// CPU affinity is not available on this platform: nothing is pinned.
enum CPUAffinity {
    static var currentCPU: Int? { nil }
    static func pinCallingThread(to cpu: Int) {}
}
#endif
