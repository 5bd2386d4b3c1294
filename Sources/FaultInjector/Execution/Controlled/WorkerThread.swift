#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A plain pthread for one controlled-run worker, so the runner can join it and know it is gone.
///
/// Fresh threads each run matter for exact replay: GuardCore keeps per-thread caches, and a thread that ran
/// before would take fewer schedule steps than a new one.
final class WorkerThread: @unchecked Sendable {
    private final class Start {
        let body: @Sendable () -> Void
        init(_ body: @escaping @Sendable () -> Void) { self.body = body }
    }

    #if canImport(Darwin)
    private var thread: pthread_t?
    #else
    private var thread = pthread_t()
    #endif

    /// Starts a thread that runs `body`.
    init(_ body: @escaping @Sendable () -> Void) {
        let start = Unmanaged.passRetained(Start(body)).toOpaque()
        #if canImport(Darwin)
        let status = pthread_create(&thread, nil, { context in
            Unmanaged<Start>.fromOpaque(context).takeRetainedValue().body()
            return nil
        }, start)
        #else
        let status = pthread_create(&thread, nil, { context in
            Unmanaged<Start>.fromOpaque(context!).takeRetainedValue().body()
            return nil
        }, start)
        #endif
        precondition(status == 0, "pthread_create failed with \(status)")
    }

    /// Waits until the thread has ended.
    func join() {
        #if canImport(Darwin)
        guard let thread else { return }
        #endif
        pthread_join(thread, nil)
    }

    /// Lets the thread go without waiting for it (for workers abandoned blocked).
    func detach() {
        #if canImport(Darwin)
        guard let thread else { return }
        #endif
        pthread_detach(thread)
    }
}
